import { type FormEvent, useState } from 'react';
import {
  CATEGORY_MAX,
  MEMORY_TEXT_MAX,
  type Memory,
  PRIORITIES,
  PROJECT_MAX,
  type Priority,
} from '../../../src/contract';
import { api } from '../api';
import { useConfirm } from '../components/Confirm';
import { Field } from '../components/Field';
import { ErrorAlert, Loading } from '../components/Status';
import { setFlash } from '../flash';
import { formatDate, splitList } from '../format';
import { useResource, useTitle } from '../hooks';
import { joinMetadata, mergePatch, parseOther, splitMetadata } from '../metadata';
import { href, navigate } from '../router';

export function MemoryEditor({ memoryId }: { memoryId?: string }) {
  useTitle(memoryId ? 'Edit memory' : 'New memory');
  const existing = useResource(`memory:${memoryId ?? ''}`, (signal) =>
    memoryId ? api.memory(memoryId, signal) : Promise.resolve(undefined),
  );
  if (memoryId && existing.error !== undefined) {
    return (
      <section className="page">
        <h1>Edit memory</h1>
        <ErrorAlert error={existing.error} onRetry={existing.reload} />
        <p>
          <a href={href(['memories'])}>Back to your memories</a>
        </p>
      </section>
    );
  }
  if (memoryId && !existing.data) return <Loading label="Loading the memory…" />;
  return <MemoryForm memory={existing.data} />;
}

function MemoryForm({ memory }: { memory: Memory | undefined }) {
  const confirm = useConfirm();
  const initial = splitMetadata(memory?.metadata ?? {});
  const [text, setText] = useState(memory?.text ?? '');
  const [project, setProject] = useState(memory?.project_name ?? '');
  const [category, setCategory] = useState(initial.category);
  const [priority, setPriority] = useState<'' | Priority>(initial.priority);
  const [tags, setTags] = useState(initial.tags.join(', '));
  const [other, setOther] = useState(
    Object.keys(initial.other).length > 0 ? JSON.stringify(initial.other, null, 2) : '',
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const parsed = parseOther(other);
  const otherProblem = 'problem' in parsed ? parsed.problem : '';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!('value' in parsed)) return;
    const metadata = joinMetadata({ category: category.trim(), priority, tags: splitList(tags), other: parsed.value });
    const projectName = project.trim() || null;
    setBusy(true);
    setError(undefined);
    try {
      if (memory) {
        const patch = mergePatch(memory.metadata, metadata);
        await api.updateMemory(memory.memory_id, {
          text,
          project_name: projectName,
          ...(Object.keys(patch).length > 0 && { metadata: patch }),
        });
        setFlash('The memory was saved.');
      } else {
        await api.createMemory({ text, project_name: projectName, metadata });
        setFlash('The memory was created.');
      }
      navigate(href(['memories']));
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  const remove = async () => {
    if (!memory) return;
    const ok = await confirm({
      title: 'Delete this memory?',
      message: 'It is deleted for good; tools will no longer find it.',
      confirmLabel: 'Delete memory',
      danger: true,
    });
    if (!ok) return;
    try {
      await api.deleteMemory(memory.memory_id);
      setFlash('The memory was deleted.');
      navigate(href(['memories']));
    } catch (caught) {
      setError(caught);
    }
  };

  return (
    <section className="page page-narrow">
      <p className="breadcrumb">
        <a href={href(['memories'])}>Memories</a>
      </p>
      <h1>{memory ? 'Edit memory' : 'New memory'}</h1>
      {memory && (
        <p className="row-meta">
          Created {formatDate(memory.created_at)} · updated {formatDate(memory.updated_at)} · last used{' '}
          {formatDate(memory.last_accessed_at, 'never')}
        </p>
      )}
      <form className="card stack" onSubmit={submit} aria-label="Memory">
        <ErrorAlert error={error} />
        <Field
          label="Text"
          hint={`What should be remembered, in a sentence or a few. Up to ${MEMORY_TEXT_MAX.toLocaleString('en-US')} characters.`}
        >
          {(id, hint) => (
            <textarea
              id={id}
              required
              rows={6}
              maxLength={MEMORY_TEXT_MAX}
              aria-describedby={hint}
              value={text}
              onChange={(event) => setText(event.target.value)}
              data-testid="memory-text"
            />
          )}
        </Field>
        <Field
          label="Project"
          hint="Optional, e.g. acme/backend (segments of letters, digits, . _ - joined by /). Empty means global: relevant everywhere."
        >
          {(id, hint) => (
            <input
              id={id}
              type="text"
              maxLength={PROJECT_MAX}
              pattern="[A-Za-z0-9._\-]+(/[A-Za-z0-9._\-]+)*"
              aria-describedby={hint}
              value={project}
              onChange={(event) => setProject(event.target.value)}
              data-testid="memory-project"
            />
          )}
        </Field>
        <div className="field-row">
          <Field label="Category" className="grow">
            {(id) => (
              <input
                id={id}
                type="text"
                maxLength={CATEGORY_MAX}
                placeholder="e.g. coding_standards"
                value={category}
                onChange={(event) => setCategory(event.target.value)}
                data-testid="memory-category"
              />
            )}
          </Field>
          <Field label="Priority">
            {(id) => (
              <select
                id={id}
                value={priority}
                onChange={(event) => setPriority(event.target.value as '' | Priority)}
                data-testid="memory-priority"
              >
                <option value="">Not set (medium)</option>
                {PRIORITIES.map((value) => (
                  <option key={value} value={value}>
                    {value[0]?.toUpperCase()}
                    {value.slice(1)}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <Field label="Tags" hint="Comma-separated, at most 20.">
          {(id, hint) => (
            <input
              id={id}
              type="text"
              aria-describedby={hint}
              value={tags}
              onChange={(event) => setTags(event.target.value)}
              data-testid="memory-tags"
            />
          )}
        </Field>
        <Field
          label="Other metadata (JSON)"
          hint={otherProblem || 'Optional JSON object with any other keys, e.g. {"owner": "me"}. At most 16 KiB.'}
        >
          {(id, hint) => (
            <textarea
              id={id}
              rows={4}
              className="mono"
              spellCheck={false}
              aria-invalid={otherProblem !== ''}
              aria-describedby={hint}
              value={other}
              onChange={(event) => setOther(event.target.value)}
              data-testid="memory-metadata"
            />
          )}
        </Field>
        <div className="actions">
          <button
            type="submit"
            className="button button-primary"
            disabled={busy || otherProblem !== ''}
            data-testid="memory-save"
          >
            {busy ? 'Saving…' : memory ? 'Save changes' : 'Create memory'}
          </button>
          <a className="button" href={href(['memories'])}>
            Cancel
          </a>
          {memory && (
            <button
              type="button"
              className="button button-danger push-end"
              onClick={remove}
              data-testid="memory-delete"
            >
              Delete
            </button>
          )}
        </div>
      </form>
    </section>
  );
}
