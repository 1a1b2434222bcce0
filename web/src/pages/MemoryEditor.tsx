import { type FormEvent, useState } from 'react';
import { CATEGORY_MAX, MEMORY_TEXT_MAX, type Memory, PROJECT_MAX, type Priority } from '../../../src/contract';
import { useDeleteAndLeave, useSubmission } from '../actions';
import { api } from '../api';
import { Check } from '../components/Check';
import { PROJECT_PATTERN, SelectField, TextAreaField, TextField } from '../components/Field';
import { FormActions } from '../components/FormActions';
import { PriorityOptions } from '../components/PriorityOptions';
import { ErrorAlert, Loading, Notice, PageLoadError } from '../components/Status';
import { setFlash, useFlash } from '../flash';
import { formatDate, splitList } from '../format';
import { useResource, useTitle } from '../hooks';
import { joinMetadata, mergePatch, parseOther, splitMetadata } from '../metadata';
import { href, navigate } from '../router';
import { LifecycleBadges } from './MemoriesPage';

/** An ISO time → the value of a `datetime-local` input (local time, to the minute). */
function localInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function MemoryEditor({ memoryId }: { memoryId?: string }) {
  useTitle(memoryId ? 'Edit memory' : 'New memory');
  const existing = useResource(`memory:${memoryId ?? ''}`, (signal) =>
    memoryId ? api.memory(memoryId, signal) : Promise.resolve(undefined),
  );
  if (memoryId && existing.error !== undefined) {
    return <PageLoadError heading="Edit memory" error={existing.error} onRetry={existing.reload} back={BACK} />;
  }
  if (memoryId && !existing.data) return <Loading label="Loading the memory…" />;
  return <MemoryForm memory={existing.data} />;
}

const BACK = { href: href(['memories']), label: 'Back to your memories' };

function MemoryForm({ memory }: { memory: Memory | undefined }) {
  const initial = splitMetadata(memory?.metadata ?? {});
  const [text, setText] = useState(memory?.text ?? '');
  const [project, setProject] = useState(memory?.project_name ?? '');
  const [category, setCategory] = useState(initial.category);
  const [priority, setPriority] = useState<'' | Priority>(initial.priority);
  const [tags, setTags] = useState(initial.tags.join(', '));
  const [other, setOther] = useState(
    Object.keys(initial.other).length > 0 ? JSON.stringify(initial.other, null, 2) : '',
  );
  const [expires, setExpires] = useState(localInput(memory?.expires_at));
  const [pinned, setPinned] = useState(memory?.pinned ?? false);
  const [supersedes, setSupersedes] = useState('');
  // What brought us here, e.g. a restore from the history page.
  const notice = useFlash();
  const sending = useSubmission();
  const deleteAndLeave = useDeleteAndLeave(sending.setError);
  const parsed = parseOther(other);
  const otherProblem = 'problem' in parsed ? parsed.problem : '';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!('value' in parsed)) return;
    const metadata = joinMetadata({ category: category.trim(), priority, tags: splitList(tags), other: parsed.value });
    const projectName = project.trim() || null;
    // A datetime-local value is local time: the browser's Date turns it into the instant it names.
    const expiresAt = expires === '' ? null : new Date(expires).toISOString();
    const replaced = splitList(supersedes);
    void sending.leave(async () => {
      if (memory) {
        const patch = mergePatch(memory.metadata, metadata);
        const expiryChanged = expires !== localInput(memory.expires_at);
        await api.updateMemory(memory.memory_id, {
          text,
          project_name: projectName,
          ...(Object.keys(patch).length > 0 && { metadata: patch }),
          ...(expiryChanged && { expires_at: expiresAt }),
          ...(pinned !== memory.pinned && { pinned }),
          ...(replaced.length > 0 && { supersedes: replaced }),
        });
        setFlash('The memory was saved.');
      } else {
        await api.createMemory({
          text,
          project_name: projectName,
          metadata,
          ...(expiresAt !== null && { expires_at: expiresAt }),
          ...(pinned && { pinned }),
          ...(replaced.length > 0 && { supersedes: replaced }),
        });
        setFlash('The memory was created.');
      }
      navigate(BACK.href);
    });
  };

  const remove = (existing: Memory) =>
    deleteAndLeave({
      question: {
        title: 'Delete this memory?',
        message: 'It is deleted for good; tools will no longer find it.',
        confirmLabel: 'Delete memory',
      },
      work: () => api.deleteMemory(existing.memory_id),
      done: 'The memory was deleted.',
      to: BACK.href,
    });

  return (
    <section className="page page-narrow">
      <p className="breadcrumb">
        <a href={BACK.href}>Memories</a>
      </p>
      <h1>{memory ? 'Edit memory' : 'New memory'}</h1>
      <Notice notice={notice} />
      {memory && (
        <p className="row-meta">
          Created {formatDate(memory.created_at)} · updated {formatDate(memory.updated_at)} · last used{' '}
          {formatDate(memory.last_accessed_at, 'never')} <LifecycleBadges memory={memory} /> ·{' '}
          <a href={href(['memories', memory.memory_id, 'history'])} data-testid="memory-history-link">
            History
          </a>
        </p>
      )}
      <form className="card stack" onSubmit={submit} aria-label="Memory">
        <ErrorAlert error={sending.error} />
        <TextAreaField
          label="Text"
          hint={`What should be remembered, in a sentence or a few. Up to ${MEMORY_TEXT_MAX.toLocaleString('en-US')} characters.`}
          required
          rows={6}
          maxLength={MEMORY_TEXT_MAX}
          value={text}
          onChange={setText}
          testId="memory-text"
        />
        <TextField
          label="Project"
          hint="Optional, e.g. acme/backend (segments of letters, digits, . _ - joined by /). Empty means global: relevant everywhere."
          maxLength={PROJECT_MAX}
          pattern={PROJECT_PATTERN}
          value={project}
          onChange={setProject}
          testId="memory-project"
        />
        <div className="field-row">
          <TextField
            label="Category"
            className="grow"
            maxLength={CATEGORY_MAX}
            placeholder="e.g. coding_standards"
            value={category}
            onChange={setCategory}
            testId="memory-category"
          />
          <SelectField
            label="Priority"
            value={priority}
            onChange={(value) => setPriority(value as '' | Priority)}
            testId="memory-priority"
          >
            <PriorityOptions none="Not set (medium)" />
          </SelectField>
        </div>
        <TextField
          label="Tags"
          hint="Comma-separated, at most 20."
          value={tags}
          onChange={setTags}
          testId="memory-tags"
        />
        <div className="field-row">
          <TextField
            label="Expires"
            className="grow"
            hint="Optional. After this time the memory is hidden from search and context (still readable here)."
            type="datetime-local"
            value={expires}
            onChange={setExpires}
            testId="memory-expires"
          />
        </div>
        <Check
          label="Pinned"
          help="Always in the context of its project, first among equals; never expires while pinned."
          checked={pinned}
          onChange={setPinned}
          testId="memory-pinned-check"
        />
        <TextField
          label="Replaces"
          hint={
            memory
              ? 'Optional: ids (mem_…) of older memories this one replaces, comma-separated; empty leaves its links as they are.'
              : 'Optional: ids (mem_…) of older memories this one replaces because a fact changed, comma-separated.'
          }
          value={supersedes}
          onChange={setSupersedes}
          testId="memory-supersedes"
        />
        <TextAreaField
          label="Other metadata (JSON)"
          hint={otherProblem || 'Optional JSON object with any other keys, e.g. {"owner": "me"}. At most 16 KiB.'}
          rows={4}
          controlClassName="mono"
          spellCheck={false}
          aria-invalid={otherProblem !== ''}
          value={other}
          onChange={setOther}
          testId="memory-metadata"
        />
        <FormActions
          save={{ busy: sending.busy, disabled: otherProblem !== '', label: memory ? 'Save changes' : 'Create memory' }}
          testId="memory"
          cancel={{ href: BACK.href, label: 'Cancel' }}
          onDelete={memory && (() => remove(memory))}
        />
      </form>
    </section>
  );
}
