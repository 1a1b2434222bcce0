import { type FormEvent, useEffect, useRef, useState } from 'react';
import { type ApiKey, type CreatedApiKey, INTEGRATIONS, type Integration, KEY_NAME_MAX } from '../../../src/contract';
import { useRowAction, useSubmission } from '../actions';
import { api } from '../api';
import { Check } from '../components/Check';
import { CopyButton } from '../components/CopyButton';
import { TextField } from '../components/Field';
import { RowButton, RowDeleteButton } from '../components/ListPage';
import { SettingsTabs } from '../components/SettingsTabs';
import { EmptyState, ErrorAlert, Loaded, Notice } from '../components/Status';
import { formatDate, formatNumber } from '../format';
import { useResource, useTitle } from '../hooks';
import { useNotice } from '../notice';

const INTEGRATION_INFO: Record<Integration, { label: string; help: string }> = {
  ai_tools: {
    label: 'AI tools',
    help: 'REST API access to prompts, memories and artifacts for assistants and agents.',
  },
  cli: { label: 'CLI', help: 'The same REST access, for the cairn command-line tool and scripts.' },
  mcp_server: {
    label: 'MCP server',
    help: 'The MCP endpoint (/mcp/v1/common) for Claude, Cursor and other MCP clients.',
  },
  marketplace: { label: 'Marketplace', help: 'Read-only access to your published prompts, nothing else.' },
};

const integrationLabel = (name: string) => INTEGRATION_INFO[name as Integration]?.label ?? name;

export function KeysPage() {
  useTitle('API keys');
  const keys = useResource('keys', (signal) => api.keys(signal));
  const [created, setCreated] = useState<CreatedApiKey>();

  return (
    <section className="page">
      <h1>Settings</h1>
      <SettingsTabs current="keys" />
      <CreateKeyForm
        onCreated={(key) => {
          setCreated(key);
          keys.reload();
        }}
      />
      {created && <NewKey created={created} onDismiss={() => setCreated(undefined)} />}
      <section className="card" aria-labelledby="keys-heading">
        <h2 id="keys-heading">Your keys</h2>
        <Loaded resource={keys} loading="Loading your keys…">
          {(data) => <KeyList keys={data.keys} onChange={keys.reload} />}
        </Loaded>
      </section>
    </section>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: (key: CreatedApiKey) => void }) {
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<Set<Integration>>(new Set());
  const sending = useSubmission();
  const [problem, setProblem] = useState('');

  const toggle = (integration: Integration, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(integration);
    else next.delete(integration);
    setChosen(next);
    setProblem('');
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (chosen.size === 0) {
      setProblem('Choose at least one integration: what will this key be used for?');
      return;
    }
    void sending.run(async () => {
      onCreated(
        await api.createKey(
          name.trim(),
          INTEGRATIONS.filter((integration) => chosen.has(integration)),
        ),
      );
      setName('');
      setChosen(new Set());
    });
  };

  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="create-key-heading">
      <h2 id="create-key-heading">Create an API key</h2>
      <p className="hint">
        Keys let tools use your prompts, memories and artifacts. Give each tool its own key so you can revoke one
        without disturbing the others.
      </p>
      <ErrorAlert error={sending.error} />
      <TextField
        label="Name"
        hint="Something that tells you where the key is used, e.g. “Laptop – Claude Code”."
        required
        maxLength={KEY_NAME_MAX}
        value={name}
        onChange={setName}
        testId="key-name"
      />
      <fieldset className="checks" aria-describedby={problem ? 'key-integrations-problem' : undefined}>
        <legend>Integrations</legend>
        {INTEGRATIONS.map((integration) => (
          <Check
            key={integration}
            label={INTEGRATION_INFO[integration].label}
            help={INTEGRATION_INFO[integration].help}
            checked={chosen.has(integration)}
            onChange={(on) => toggle(integration, on)}
            testId={`key-integration-${integration}`}
          />
        ))}
        {problem && (
          <p className="field-error" id="key-integrations-problem" role="alert">
            {problem}
          </p>
        )}
      </fieldset>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={sending.busy} data-testid="key-create">
          {sending.busy ? 'Creating…' : 'Create key'}
        </button>
      </div>
    </form>
  );
}

function NewKey({ created, onDismiss }: { created: CreatedApiKey; onDismiss: () => void }) {
  // Move the focus (and the view) to the key, so nobody misses it.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (created.id) heading.current?.focus();
  }, [created.id]);

  return (
    <section className="card new-key" aria-labelledby="new-key-heading" data-testid="new-key">
      <h2 id="new-key-heading" ref={heading} tabIndex={-1}>
        Your new key “{created.name}”
      </h2>
      <p className="warning">
        <strong>Copy this key now. It will not be shown again:</strong> Cairn stores only a fingerprint of it. If you
        lose it, delete the key and create a new one.
      </p>
      <div className="secret">
        <code data-testid="new-key-value">{created.key}</code>
        <CopyButton text={created.key} label="Copy key" testId="new-key-copy" />
      </div>
      <div className="actions">
        <button type="button" className="button" onClick={onDismiss} data-testid="new-key-done">
          I have saved it
        </button>
      </div>
    </section>
  );
}

function KeyList({ keys, onChange }: { keys: ApiKey[]; onChange: () => void }) {
  const notice = useNotice();
  const action = useRowAction(notice, onChange);

  const revoke = (key: ApiKey) =>
    action.act({
      question: {
        title: `Revoke “${key.name}”?`,
        message:
          'Tools using this key stop working immediately. The key stays listed as revoked; this cannot be undone.',
        confirmLabel: 'Revoke key',
      },
      work: () => api.revokeKey(key.id),
      done: `“${key.name}” was revoked.`,
    });

  const remove = (key: ApiKey) =>
    action.act({
      question: {
        title: `Delete “${key.name}”?`,
        message: 'The key stops working immediately and disappears from this list, with its usage figures.',
        confirmLabel: 'Delete key',
      },
      work: () => api.deleteKey(key.id),
      done: `“${key.name}” was deleted.`,
    });

  return (
    <>
      <ErrorAlert error={action.error} />
      <Notice notice={notice} />
      {keys.length === 0 && (
        <EmptyState title="No API keys yet">
          Create one above, then give it to your AI tool, the CLI or your MCP client.
        </EmptyState>
      )}
      <ul className="rows" hidden={keys.length === 0}>
        {keys.map((key) => (
          <li key={key.id} className="row" data-testid="key-row" data-key-id={key.id}>
            <div className="row-head">
              <strong className="row-title">{key.name}</strong>
              {key.revoked_at ? (
                <span className="badge badge-danger" data-testid="key-status">
                  Revoked
                </span>
              ) : (
                <span className="badge badge-ok" data-testid="key-status">
                  Active
                </span>
              )}
              {key.legacy && (
                <span className="badge" title="Imported from the previous system; holds all integrations">
                  Legacy
                </span>
              )}
            </div>
            <dl className="facts facts-inline">
              <dt>Prefix</dt>
              <dd>
                <code data-testid="key-prefix">{key.prefix}…</code>
              </dd>
              <dt>Integrations</dt>
              <dd>{key.integrations.map(integrationLabel).join(', ') || '—'}</dd>
              <dt>Created</dt>
              <dd>{formatDate(key.created_at)}</dd>
              <dt>Last used</dt>
              <dd>{formatDate(key.last_used_at, 'Never')}</dd>
              <dt>Requests</dt>
              <dd data-testid="key-requests">{formatNumber(key.request_count)}</dd>
              {key.revoked_at && (
                <>
                  <dt>Revoked</dt>
                  <dd>{formatDate(key.revoked_at)}</dd>
                </>
              )}
            </dl>
            <div className="actions">
              {!key.revoked_at && (
                <RowButton onClick={() => revoke(key)} testId="key-revoke">
                  Revoke
                </RowButton>
              )}
              <RowDeleteButton onClick={() => remove(key)} testId="key-delete" />
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}
