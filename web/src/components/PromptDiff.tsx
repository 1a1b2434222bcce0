import { useMemo, useState } from 'react';
import type { PromptVersion } from '../../../src/contract';
import { formatNumber, plural } from '../format';
import { contentDiff, diffStats, schemaChanges } from '../prompt-diff';

/** What changed from one version to another: title, description, labels, variables, then the content lines. */
export function PromptDiff({ before, after }: { before: PromptVersion; after: PromptVersion }) {
  const [full, setFull] = useState(false);
  const rows = useMemo(() => contentDiff(before.content, after.content, !full), [before, after, full]);
  const stats = diffStats(rows);
  const variables = schemaChanges(before, after);
  const removedLabels = before.labels.filter((label) => !after.labels.includes(label));
  const addedLabels = after.labels.filter((label) => !before.labels.includes(label));
  const folded = rows.some((row) => row.kind === 'skip');
  const fields = [
    before.title !== after.title && (
      <Change key="title" field="title" label="Title" before={before.title} after={after.title} />
    ),
    before.description !== after.description && (
      <Change
        key="description"
        field="description"
        label="Description"
        before={before.description}
        after={after.description}
      />
    ),
    (removedLabels.length > 0 || addedLabels.length > 0) && (
      <div key="labels" className="diff-field" data-testid="diff-field" data-field="labels">
        <h4>Labels</h4>
        <ul className="tags">
          {removedLabels.map((label) => (
            <li key={`-${label}`} className="tag diff-tag-removed">
              <del>
                <span className="visually-hidden">Removed: </span>
                {label}
              </del>
            </li>
          ))}
          {addedLabels.map((label) => (
            <li key={`+${label}`} className="tag diff-tag-added">
              <ins>
                <span className="visually-hidden">Added: </span>
                {label}
              </ins>
            </li>
          ))}
        </ul>
      </div>
    ),
    ...variables.map((change) => (
      <Change
        key={`variable:${change.name}`}
        field={`variable:${change.name}`}
        label={`Variable {{${change.name}}}`}
        before={change.before}
        after={change.after}
      />
    )),
  ].filter(Boolean);

  return (
    <div className="stack diff" data-testid="diff">
      <section aria-label="Other changes" data-testid="diff-fields">
        {fields.length === 0 ? (
          <p className="hint">Title, description, labels and variables are the same.</p>
        ) : (
          <div className="stack-small">{fields}</div>
        )}
      </section>
      <section aria-labelledby="diff-content-heading" className="stack-small">
        <div className="page-head">
          <h3 id="diff-content-heading">Content</h3>
          <p className="hint" data-testid="diff-stats">
            {stats.added === 0 && stats.removed === 0
              ? 'No change.'
              : `${plural(stats.added, 'line')} added, ${formatNumber(stats.removed)} removed.`}
          </p>
        </div>
        <p className="visually-hidden">
          Content from version {before.version} to {after.version}, line by line:
        </p>
        <pre className="diff-lines">
          {rows.map((row) => {
            if (row.kind === 'skip') {
              return (
                <span key={row.key} className="diff-line diff-skip">
                  ⋯ {plural(row.count, 'unchanged line')}
                </span>
              );
            }
            if (row.kind === 'same') {
              return (
                <span key={row.key} className="diff-line" data-testid="diff-line" data-kind="same">
                  <span className="diff-sign" aria-hidden="true">
                    {' '}
                  </span>
                  {row.text}
                </span>
              );
            }
            const Tag = row.kind === 'added' ? 'ins' : 'del';
            return (
              <Tag key={row.key} className={`diff-line diff-${row.kind}`} data-testid="diff-line" data-kind={row.kind}>
                <span className="diff-sign" aria-hidden="true">
                  {row.kind === 'added' ? '+' : '−'}
                </span>
                <span className="visually-hidden">{row.kind === 'added' ? 'Added: ' : 'Removed: '}</span>
                {row.text}
              </Tag>
            );
          })}
        </pre>
        {(folded || full) && (
          <p>
            <button type="button" className="button button-small" onClick={() => setFull(!full)}>
              {full ? 'Fold unchanged lines' : 'Show all lines'}
            </button>
          </p>
        )}
      </section>
    </div>
  );
}

interface ChangeProps {
  field: string;
  label: string;
  before: string | undefined;
  after: string | undefined;
}

/** One field's old and new value (undefined: it did not exist on that side). */
function Change({ field, label, before, after }: ChangeProps) {
  return (
    <div className="diff-field" data-testid="diff-field" data-field={field}>
      <h4>{label}</h4>
      {before !== undefined && <Side value={before} kind="removed" />}
      {after !== undefined && <Side value={after} kind="added" />}
      {before === undefined && <p className="hint">Newly described.</p>}
      {after === undefined && <p className="hint">No longer described.</p>}
    </div>
  );
}

/** One side of a field's change, struck out (before) or marked as inserted (after). */
function Side({ value, kind }: { value: string; kind: 'added' | 'removed' }) {
  const Tag = kind === 'added' ? 'ins' : 'del';
  return (
    <p>
      <Tag className={`diff-${kind}`}>
        <span className="visually-hidden">{kind === 'added' ? 'After: ' : 'Before: '}</span>
        {value === '' ? '(empty)' : value}
      </Tag>
    </p>
  );
}
