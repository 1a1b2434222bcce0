import { useState } from 'react';
import { COMMIT_MESSAGE_MAX, type Prompt } from '../../../src/contract';
import { api } from '../api';
import { formatDate } from '../format';
import { useResource } from '../hooks';
import { SelectField, TextField } from './Field';
import { PromptDiff } from './PromptDiff';
import { ErrorAlert, Loading } from './Status';

interface VersionCompareProps {
  prompt: Prompt;
  before: number;
  after: number;
  onPick: (before: number, after: number) => void;
}

/** Two version pickers and the diff between them. */
export function VersionCompare({ prompt, before, after, onPick }: VersionCompareProps) {
  const numbers = Array.from({ length: prompt.version }, (_, index) => prompt.version - index);
  const a = useResource(`prompt-version:${prompt.id}:${before}`, (signal) =>
    api.promptVersion(prompt.id, before, signal),
  );
  const b = useResource(`prompt-version:${prompt.id}:${after}`, (signal) =>
    api.promptVersion(prompt.id, after, signal),
  );
  const picker = (label: string, value: number, onChange: (value: number) => void, testId: string) => (
    <SelectField label={label} value={String(value)} onChange={(picked) => onChange(Number(picked))} testId={testId}>
      {numbers.map((number) => (
        <option key={number} value={number}>
          Version {number}
          {number === prompt.version ? ' (current)' : ''}
        </option>
      ))}
    </SelectField>
  );
  return (
    <section className="card stack" aria-labelledby="compare-heading" data-testid="history-compare">
      <h2 id="compare-heading" tabIndex={-1}>
        Compare versions
      </h2>
      <div className="field-row">
        {picker('From', before, (value) => onPick(value, after), 'history-from')}
        {picker('To', after, (value) => onPick(before, value), 'history-to')}
      </div>
      {a.error !== undefined && <ErrorAlert error={a.error} onRetry={a.reload} />}
      {b.error !== undefined && <ErrorAlert error={b.error} onRetry={b.reload} />}
      {(a.loading || b.loading) && <Loading label="Loading the versions…" />}
      {a.data && b.data && !a.loading && !b.loading && (
        <>
          <p className="row-meta">
            Version {a.data.version} ({formatDate(a.data.created_at)}) → version {b.data.version} (
            {formatDate(b.data.created_at)})
          </p>
          {a.data.version === b.data.version ? (
            <p className="hint">The same version is picked twice: choose another to see changes.</p>
          ) : (
            <PromptDiff before={a.data} after={b.data} />
          )}
        </>
      )}
    </section>
  );
}

interface RestoreFieldsProps {
  version: number;
  next: number;
  onMessage: (message: string) => void;
}

/** The body of the restore confirmation: what happens, and an optional commit message. */
export function RestoreFields({ version, next, onMessage }: RestoreFieldsProps) {
  const [message, setMessage] = useState('');
  return (
    <div className="stack-small">
      <p>
        Version {next} will be saved with the title, description, content, labels and variables of version {version}.
        The history keeps every version.
      </p>
      <TextField
        label="Commit message (optional)"
        hint={`Empty: “Restored version ${version}”.`}
        maxLength={COMMIT_MESSAGE_MAX}
        value={message}
        onChange={(value) => {
          setMessage(value);
          onMessage(value);
        }}
        testId="restore-message"
      />
    </div>
  );
}
