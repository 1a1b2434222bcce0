import { useState } from 'react';
import {
  AUDIT_ACTIONS,
  AUDIT_OBJECT_TYPES,
  AUDIT_SURFACES,
  type AuditEvent,
  type AuditList,
  type AuditListParams,
} from '../../../src/contract';
import { api, describeError } from '../api';
import { SelectField } from '../components/Field';
import { EmptyState, Loaded } from '../components/Status';
import { Table } from '../components/TableScroll';
import { formatDate } from '../format';
import { useResource, useTitle } from '../hooks';
import { href } from '../router';

const PER_PAGE = 50;
const ANY = '';

const OBJECT_LABELS: Record<string, string> = {
  prompt: 'Prompt',
  artifact: 'Artifact',
  memory: 'Memory',
  api_key: 'API key',
  prompt_environment: 'Prompt environment',
  account: 'Account',
};
const SURFACE_LABELS: Record<string, string> = {
  rest: 'REST API',
  mcp: 'MCP',
  dashboard: 'Dashboard',
  cli: 'CLI',
  import: 'Import',
};

/** Where an event's object can be seen now (if it still exists, the page says so). */
function objectLink(event: AuditEvent): string | undefined {
  if (event.action === 'deleted') return undefined;
  if (event.object_type === 'prompt' && event.object_handle) return href(['prompts', event.object_handle, 'edit']);
  if (event.object_type === 'memory') return href(['memories', event.object_id]);
  if (event.object_type === 'artifact' && event.object_handle) {
    const cut = event.object_handle.lastIndexOf('/');
    return href(['artifacts', event.object_handle.slice(0, cut), event.object_handle.slice(cut + 1)]);
  }
  return undefined;
}

const client = (event: AuditEvent) =>
  event.client_name ? `${event.client_name}${event.client_version ? ` ${event.client_version}` : ''}` : '—';

/** The account's audit trail: every change, newest first, with filters and "older" paging by cursor. */
export function ActivityPage() {
  useTitle('Activity');
  const [filters, setFilters] = useState({ object_type: ANY, action: ANY, surface: ANY });
  const query: AuditListParams = {
    per_page: PER_PAGE,
    ...(filters.object_type && { object_type: filters.object_type as AuditListParams['object_type'] }),
    ...(filters.action && { action: filters.action as AuditListParams['action'] }),
    ...(filters.surface && { surface: filters.surface as AuditListParams['surface'] }),
  };
  const key = JSON.stringify(query);
  const first = useResource(key, (signal) => api.audit(query, signal));
  // Older pages loaded with "Show older", for the filters they were loaded with.
  const [older, setOlder] = useState<{ key: string; pages: AuditList[] }>({ key, pages: [] });
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [olderError, setOlderError] = useState<string | undefined>();
  const pages = older.key === key ? older.pages : [];
  const last = pages[pages.length - 1] ?? first.data;
  const set = (name: keyof typeof filters) => (value: string) => setFilters((f) => ({ ...f, [name]: value }));

  async function showOlder() {
    if (!last?.next_cursor) return;
    setLoadingOlder(true);
    setOlderError(undefined);
    try {
      const page = await api.audit({ ...query, cursor: last.next_cursor });
      setOlder({ key, pages: [...pages, page] });
    } catch (error) {
      setOlderError(describeError(error));
    } finally {
      setLoadingOlder(false);
    }
  }

  return (
    <section className="page">
      <div className="page-head">
        <h1>Activity</h1>
        <button type="button" className="button" onClick={first.reload} disabled={first.loading}>
          Refresh
        </button>
      </div>
      <p className="hint">
        Every change to your prompts, artifacts, memories and API keys, from every surface: the REST API, MCP clients,
        this dashboard, the CLI and imports. Content is never shown here, only a fingerprint (SHA-256) of it.
      </p>
      <search className="filters" aria-label="Filter activity">
        <SelectField label="Object" value={filters.object_type} onChange={set('object_type')} testId="audit-object">
          <option value={ANY}>All objects</option>
          {AUDIT_OBJECT_TYPES.map((type) => (
            <option key={type} value={type}>
              {OBJECT_LABELS[type] ?? type}
            </option>
          ))}
        </SelectField>
        <SelectField label="Action" value={filters.action} onChange={set('action')} testId="audit-action">
          <option value={ANY}>All actions</option>
          {AUDIT_ACTIONS.map((action) => (
            <option key={action} value={action}>
              {action}
            </option>
          ))}
        </SelectField>
        <SelectField label="Surface" value={filters.surface} onChange={set('surface')} testId="audit-surface">
          <option value={ANY}>All surfaces</option>
          {AUDIT_SURFACES.map((surface) => (
            <option key={surface} value={surface}>
              {SURFACE_LABELS[surface] ?? surface}
            </option>
          ))}
        </SelectField>
      </search>
      <Loaded resource={first} loading="Loading activity…">
        {(data) => {
          const events = [data, ...pages].flatMap((page) => page.events);
          if (events.length === 0) {
            return (
              <EmptyState title="No activity">
                {filters.object_type || filters.action || filters.surface
                  ? 'Nothing matches these filters.'
                  : 'Changes you make anywhere show up here.'}
              </EmptyState>
            );
          }
          return (
            <Table
              label="Activity, newest first"
              columns={['When', 'Object', 'Action', 'Surface', 'Client', 'Key']}
              testId="audit-table"
            >
              {events.map((event) => {
                const link = objectLink(event);
                const name = event.object_handle ?? event.object_id;
                return (
                  <tr key={event.id} data-testid="audit-row" data-action={event.action} data-surface={event.surface}>
                    <td>{formatDate(event.at)}</td>
                    <td>
                      {OBJECT_LABELS[event.object_type] ?? event.object_type}{' '}
                      {link ? <a href={link}>{name}</a> : <code>{name}</code>}
                    </td>
                    <td>{event.action}</td>
                    <td>
                      {SURFACE_LABELS[event.surface] ?? event.surface}
                      {event.integration ? ` (${event.integration})` : ''}
                    </td>
                    <td data-testid="audit-client">{client(event)}</td>
                    <td>{event.key_id ? <code>{event.key_id}</code> : '—'}</td>
                  </tr>
                );
              })}
            </Table>
          );
        }}
      </Loaded>
      {olderError && (
        <p className="error" role="alert">
          {olderError}
        </p>
      )}
      {last?.next_cursor && (
        <button
          type="button"
          className="button"
          onClick={() => void showOlder()}
          disabled={loadingOlder}
          data-testid="audit-older"
        >
          {loadingOlder ? 'Loading…' : 'Show older'}
        </button>
      )}
    </section>
  );
}
