import { useState } from 'react';
import type { Prompt, PromptEnvironment } from '../../../src/contract';
import { MAX_PROMPT_ENVIRONMENTS, SLUG_MAX, SLUG_PATTERN } from '../../../src/contract';
import { api } from '../api';
import { useConfirm } from './Confirm';
import { SelectField, TextField } from './Field';
import { ErrorAlert } from './Status';

interface PromptEnvironmentsProps {
  prompt: Prompt;
  environments: PromptEnvironment[];
  /** Called after a pointer was set or removed: the page reloads the list. */
  onChanged: (message: string) => void;
}

/**
 * The environments of a prompt (named pointers to versions) on its history page: each with its version and
 * a remove button, and one form that points a new or existing environment at any version (moving it).
 */
export function PromptEnvironments({ prompt, environments, onChanged }: PromptEnvironmentsProps) {
  const confirm = useConfirm();
  const [name, setName] = useState('');
  const [version, setVersion] = useState(String(prompt.version));
  const [marketplace, setMarketplace] = useState(false);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const trimmed = name.trim();
  const nameError =
    trimmed !== '' && !SLUG_PATTERN.test(trimmed)
      ? 'Lowercase letters and digits separated by single hyphens, e.g. production'
      : undefined;

  const submit = async () => {
    if (!trimmed || nameError) return;
    setBusy(true);
    setError(undefined);
    try {
      const set = await api.setPromptEnvironment(prompt.id, trimmed, { version: Number(version), marketplace });
      setName('');
      setMarketplace(false);
      onChanged(set.message);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const remove = async (environment: PromptEnvironment) => {
    const ok = await confirm({
      title: `Remove environment “${environment.name}”?`,
      message: (
        <p>Reads through it will be answered “not found”. Version {environment.version} stays in the history.</p>
      ),
      confirmLabel: 'Remove',
    });
    if (!ok) return;
    setError(undefined);
    try {
      onChanged((await api.removePromptEnvironment(prompt.id, environment.name)).message);
    } catch (caught) {
      setError(caught);
    }
  };

  return (
    <section className="card stack-small" aria-labelledby="environments-heading">
      <h2 id="environments-heading">Environments</h2>
      <p className="hint">
        Named pointers to a version: reads and renders with <code>?environment=name</code> serve that version.
      </p>
      <ErrorAlert error={error} />
      {environments.length === 0 ? (
        <p className="hint" data-testid="environments-empty">
          No environments yet.
        </p>
      ) : (
        <ul className="rows" data-testid="environment-list">
          {environments.map((environment) => (
            <li
              key={environment.name}
              className="row"
              data-testid="environment-row"
              data-environment={environment.name}
              data-version={environment.version}
            >
              <div className="row-head">
                <span className="row-title">{environment.name}</span>
                <span className="badge">version {environment.version}</span>
                {environment.marketplace && <span className="badge badge-ok">marketplace</span>}
              </div>
              <div className="actions">
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => {
                    setName(environment.name);
                    setVersion(String(environment.version));
                    setMarketplace(environment.marketplace);
                  }}
                  data-testid="environment-move"
                >
                  Move…
                </button>
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => remove(environment)}
                  data-testid="environment-remove"
                >
                  Remove…
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      <form
        className="stack-small"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
        aria-label="Point an environment at a version"
      >
        <TextField
          label="Environment"
          hint={`A new name, or an existing one to move it (at most ${MAX_PROMPT_ENVIRONMENTS} per prompt).`}
          maxLength={SLUG_MAX}
          value={name}
          onChange={setName}
          error={nameError}
          list="environment-names"
          testId="environment-name"
        />
        <datalist id="environment-names">
          {environments.map((environment) => (
            <option key={environment.name} value={environment.name} />
          ))}
        </datalist>
        <SelectField label="Version" value={version} onChange={setVersion} testId="environment-version">
          {Array.from({ length: prompt.version }, (_, i) => prompt.version - i).map((n) => (
            <option key={n} value={String(n)}>
              Version {n}
              {n === prompt.version ? ' (current)' : ''}
            </option>
          ))}
        </SelectField>
        <label className="check">
          <input
            type="checkbox"
            checked={marketplace}
            onChange={(event) => setMarketplace(event.target.checked)}
            data-testid="environment-marketplace"
          />
          <span>Marketplace keys see this prompt through this environment only</span>
        </label>
        <div className="actions">
          <button
            type="submit"
            className="button"
            disabled={busy || !trimmed || nameError !== undefined}
            data-testid="environment-set"
          >
            Point here
          </button>
        </div>
      </form>
    </section>
  );
}
