import { type FormEvent, useEffect, useRef, useState } from 'react';
import {
  type CreatedWebhook,
  WEBHOOK_DESCRIPTION_MAX,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_URL_MAX,
  type WebhookEndpoint,
  type WebhookEventType,
} from '../../../src/contract';
import { useRowAction, useSubmission } from '../actions';
import { api } from '../api';
import { Check } from '../components/Check';
import { CopyButton } from '../components/CopyButton';
import { TextField } from '../components/Field';
import { RowButton, RowDeleteButton } from '../components/ListPage';
import { SettingsTabs } from '../components/SettingsTabs';
import { EmptyState, ErrorAlert, Loaded, Notice } from '../components/Status';
import { formatDate } from '../format';
import { useResource, useTitle } from '../hooks';
import { useNotice } from '../notice';

/** Settings → Webhooks: endpoints, the secret shown once, test events, the delivery log (docs/webhooks.md). */
export function WebhooksPage() {
  useTitle('Webhooks');
  const hooks = useResource('webhooks', (signal) => api.webhooks(signal));
  const [created, setCreated] = useState<CreatedWebhook>();

  return (
    <section className="page">
      <h1>Settings</h1>
      <SettingsTabs current="webhooks" />
      <Loaded resource={hooks} loading="Loading your webhooks…">
        {(data) => <DisabledNotice hooks={data.webhooks} onChange={hooks.reload} />}
      </Loaded>
      <CreateWebhookForm
        onCreated={(hook) => {
          setCreated(hook);
          hooks.reload();
        }}
      />
      {created && <NewSecret created={created} onDismiss={() => setCreated(undefined)} />}
      <section className="card" aria-labelledby="webhooks-heading">
        <h2 id="webhooks-heading">Your webhooks</h2>
        <Loaded resource={hooks} loading="Loading your webhooks…">
          {(data) => <WebhookList hooks={data.webhooks} onChange={hooks.reload} />}
        </Loaded>
      </section>
    </section>
  );
}

/** The notice of endpoints disabled after repeated failures, with their reason and a way back. */
function DisabledNotice({ hooks, onChange }: { hooks: WebhookEndpoint[]; onChange: () => void }) {
  const disabled = hooks.filter((hook) => !hook.enabled && hook.disabled_reason);
  const sending = useSubmission();
  if (disabled.length === 0) return null;
  return (
    <div className="alert alert-error" role="alert" data-testid="webhook-disabled-notice">
      <p>
        <strong>
          {disabled.length === 1 ? 'A webhook was disabled' : `${disabled.length} webhooks were disabled`} after
          repeated failed deliveries.
        </strong>{' '}
        Events for {disabled.length === 1 ? 'it' : 'them'} are kept and sent once re-enabled.
      </p>
      <ErrorAlert error={sending.error} />
      <ul>
        {disabled.map((hook) => (
          <li key={hook.id}>
            <code>{hook.url}</code>: {hook.disabled_reason}{' '}
            <button
              type="button"
              className="button"
              disabled={sending.busy}
              data-testid="webhook-reenable"
              onClick={() =>
                void sending.run(async () => {
                  await api.updateWebhook(hook.id, { enabled: true });
                  onChange();
                })
              }
            >
              Re-enable
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

function CreateWebhookForm({ onCreated }: { onCreated: (hook: CreatedWebhook) => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [chosen, setChosen] = useState<Set<WebhookEventType>>(new Set());
  const [problem, setProblem] = useState('');
  const sending = useSubmission();

  const toggle = (type: WebhookEventType, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(type);
    else next.delete(type);
    setChosen(next);
    setProblem('');
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (chosen.size === 0) {
      setProblem('Choose at least one event.');
      return;
    }
    void sending.run(async () => {
      onCreated(
        await api.createWebhook({
          url: url.trim(),
          events: WEBHOOK_EVENT_TYPES.filter((type) => chosen.has(type)),
          ...(description.trim() && { description: description.trim() }),
        }),
      );
      setUrl('');
      setDescription('');
      setChosen(new Set());
    });
  };

  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="create-webhook-heading">
      <h2 id="create-webhook-heading">Add a webhook</h2>
      <p className="hint">
        Cairn POSTs a small signed JSON event to this URL when the chosen things change. Verify the{' '}
        <code>Cairn-Signature</code> header with the secret shown after you add it.
      </p>
      <ErrorAlert error={sending.error} />
      <TextField
        label="URL"
        hint="An https:// address your service listens on."
        required
        maxLength={WEBHOOK_URL_MAX}
        value={url}
        onChange={setUrl}
        testId="webhook-url"
      />
      <TextField
        label="Description"
        hint="Optional: what receives these events."
        maxLength={WEBHOOK_DESCRIPTION_MAX}
        value={description}
        onChange={setDescription}
        testId="webhook-description"
      />
      <fieldset className="checks" aria-describedby={problem ? 'webhook-events-problem' : undefined}>
        <legend>Events</legend>
        {WEBHOOK_EVENT_TYPES.map((type) => (
          <Check
            key={type}
            label={type}
            help={EVENT_HELP[type]}
            checked={chosen.has(type)}
            onChange={(on) => toggle(type, on)}
            testId={`webhook-event-${type}`}
          />
        ))}
        {problem && (
          <p className="field-error" id="webhook-events-problem" role="alert">
            {problem}
          </p>
        )}
      </fieldset>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={sending.busy} data-testid="webhook-create">
          {sending.busy ? 'Adding…' : 'Add webhook'}
        </button>
      </div>
    </form>
  );
}

const EVENT_HELP: Record<WebhookEventType, string> = {
  'prompt.created': 'A prompt was created.',
  'prompt.updated': 'A prompt was changed.',
  'prompt.deleted': 'A prompt was deleted.',
  'artifact.created': 'An artifact was created.',
  'artifact.updated': 'An artifact was changed.',
  'artifact.deleted': 'An artifact was deleted.',
  'memory.created': 'A memory was saved.',
  'memory.updated': 'A memory was changed.',
  'memory.deleted': 'A memory was deleted.',
  'environment.moved': 'An environment was moved.',
  'key.created': 'An API key was created.',
  'key.revoked': 'An API key was revoked.',
};

function NewSecret({ created, onDismiss }: { created: CreatedWebhook; onDismiss: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (created.id) heading.current?.focus();
  }, [created.id]);
  return (
    <section className="card new-key" aria-labelledby="new-secret-heading" data-testid="webhook-secret-card">
      <h2 id="new-secret-heading" ref={heading} tabIndex={-1}>
        Signing secret for {created.url}
      </h2>
      <p className="warning">
        <strong>Copy this secret now. It will not be shown again.</strong> Your receiver uses it to check that each
        delivery comes from Cairn.
      </p>
      <div className="secret">
        <code data-testid="webhook-secret">{created.secret}</code>
        <CopyButton text={created.secret} label="Copy secret" testId="webhook-secret-copy" />
      </div>
      <div className="actions">
        <button type="button" className="button" onClick={onDismiss} data-testid="webhook-secret-done">
          I have saved it
        </button>
      </div>
    </section>
  );
}

function WebhookList({ hooks, onChange }: { hooks: WebhookEndpoint[]; onChange: () => void }) {
  const notice = useNotice();
  const action = useRowAction(notice, onChange);
  const testing = useSubmission();
  const [open, setOpen] = useState<string>();

  const remove = (hook: WebhookEndpoint) =>
    action.act({
      question: {
        title: `Delete the webhook for ${hook.url}?`,
        message: 'No more events are sent to it; its queued deliveries and its log are deleted.',
        confirmLabel: 'Delete webhook',
      },
      work: () => api.deleteWebhook(hook.id),
      done: 'The webhook was deleted.',
    });

  const sendTest = (hook: WebhookEndpoint) =>
    void testing.run(async () => {
      await api.testWebhook(hook.id);
      notice.show('Test event queued: it appears in the delivery log once sent.');
      setOpen(hook.id);
    });

  const setEnabled = (hook: WebhookEndpoint, enabled: boolean) =>
    void testing.run(async () => {
      await api.updateWebhook(hook.id, { enabled });
      onChange();
    });

  return (
    <>
      <ErrorAlert error={action.error ?? testing.error} />
      <Notice notice={notice} />
      {hooks.length === 0 && (
        <EmptyState title="No webhooks yet">Add one above to hear about changes as they happen.</EmptyState>
      )}
      <ul className="rows" hidden={hooks.length === 0}>
        {hooks.map((hook) => (
          <li key={hook.id} className="row" data-testid="webhook-row" data-webhook-id={hook.id}>
            <div className="row-head">
              <strong className="row-title">
                <code>{hook.url}</code>
              </strong>
              {hook.enabled ? (
                <span className="badge badge-ok" data-testid="webhook-status">
                  Enabled
                </span>
              ) : (
                <span className="badge badge-danger" data-testid="webhook-status">
                  Disabled
                </span>
              )}
            </div>
            <dl className="facts facts-inline">
              {hook.description && (
                <>
                  <dt>Description</dt>
                  <dd>{hook.description}</dd>
                </>
              )}
              <dt>Events</dt>
              <dd data-testid="webhook-events">{hook.events.join(', ')}</dd>
              <dt>Created</dt>
              <dd>{formatDate(hook.created_at)}</dd>
              {hook.consecutive_failures > 0 && (
                <>
                  <dt>Failures in a row</dt>
                  <dd>{hook.consecutive_failures}</dd>
                </>
              )}
            </dl>
            <div className="actions">
              {hook.enabled && (
                <RowButton onClick={() => sendTest(hook)} testId="webhook-test">
                  Send test event
                </RowButton>
              )}
              <RowButton onClick={() => setEnabled(hook, !hook.enabled)} testId="webhook-toggle">
                {hook.enabled ? 'Disable' : 'Enable'}
              </RowButton>
              <RowButton onClick={() => setOpen(open === hook.id ? undefined : hook.id)} testId="webhook-log-toggle">
                {open === hook.id ? 'Hide log' : 'Delivery log'}
              </RowButton>
              <RowDeleteButton onClick={() => remove(hook)} testId="webhook-delete" />
            </div>
            {open === hook.id && <DeliveryLog id={hook.id} />}
          </li>
        ))}
      </ul>
    </>
  );
}

function DeliveryLog({ id }: { id: string }) {
  const log = useResource(`webhook-log-${id}`, (signal) => api.webhookAttempts(id, signal));
  return (
    <div className="stack" data-testid="webhook-log">
      <div className="actions">
        <button type="button" className="button" onClick={log.reload} data-testid="webhook-log-refresh">
          Refresh
        </button>
      </div>
      <Loaded resource={log} loading="Loading the delivery log…">
        {(data) =>
          data.attempts.length === 0 ? (
            <p className="hint">No delivery attempts yet.</p>
          ) : (
            <div className="table-wrap">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Event</th>
                    <th scope="col">Attempt</th>
                    <th scope="col">Result</th>
                    <th scope="col">Response</th>
                    <th scope="col">Time</th>
                  </tr>
                </thead>
                <tbody>
                  {data.attempts.map((attempt) => (
                    <tr key={`${attempt.event_id}-${attempt.attempt}`} data-testid="webhook-attempt">
                      <td>{formatDate(attempt.attempted_at)}</td>
                      <td>{attempt.event_type}</td>
                      <td>{attempt.attempt}</td>
                      <td data-testid="webhook-attempt-outcome">{attempt.outcome}</td>
                      <td data-testid="webhook-attempt-code">{attempt.status_code ?? attempt.error ?? '—'}</td>
                      <td>{attempt.duration_ms} ms</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
    </div>
  );
}
