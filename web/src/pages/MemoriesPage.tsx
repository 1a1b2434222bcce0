import { useState } from 'react';
import { PRIORITIES, type Priority, type RankedMemory } from '../../../src/contract';
import { api } from '../api';
import { useConfirm } from '../components/Confirm';
import { Field } from '../components/Field';
import { Labels } from '../components/Labels';
import { Pager } from '../components/Pager';
import { ScoreParts } from '../components/ScoreParts';
import { EmptyState, ErrorAlert, Loading, Notice } from '../components/Status';
import { useFlash } from '../flash';
import { formatDate, splitList } from '../format';
import { useDebounced, useResource, useTitle } from '../hooks';
import { splitMetadata } from '../metadata';
import { href } from '../router';

const PER_PAGE = 20;

export function MemoriesPage() {
  useTitle('Memories');
  const confirm = useConfirm();
  const [search, setSearch] = useState('');
  const [project, setProject] = useState('');
  const [category, setCategory] = useState('');
  const [priority, setPriority] = useState<'' | Priority>('');
  const [tags, setTags] = useState('');
  const [page, setPage] = useState(1);
  const notice = useFlash();
  const [error, setError] = useState<unknown>();

  // Typed filters wait until typing pauses; the debounced value is a string so it compares by value.
  const typedNow = { search: search.trim(), project: project.trim(), category: category.trim(), tags };
  const typed = JSON.parse(useDebounced(JSON.stringify(typedNow))) as typeof typedNow;
  const searching = typed.search !== '';
  const query = {
    ...(searching && { search: typed.search, explain: true }),
    project_name: typed.project,
    category: typed.category,
    priority,
    tag: splitList(typed.tags),
    page,
    per_page: PER_PAGE,
  };
  const memories = useResource(JSON.stringify(query), (signal) => api.memories(query, signal));
  const filtered = Boolean(searching || typed.project || typed.category || priority || query.tag.length);

  const filter = (change: () => void) => {
    change();
    setPage(1);
  };

  const remove = async (memory: RankedMemory) => {
    const ok = await confirm({
      title: 'Delete this memory?',
      message: <blockquote className="quote">{excerpt(memory.text)}</blockquote>,
      confirmLabel: 'Delete memory',
      danger: true,
    });
    if (!ok) return;
    setError(undefined);
    notice.clear();
    try {
      await api.deleteMemory(memory.memory_id);
      notice.show('The memory was deleted.');
    } catch (caught) {
      setError(caught);
    }
    memories.reload();
  };

  return (
    <section className="page">
      <div className="page-head">
        <h1>Memories</h1>
        <a className="button button-primary" href={href(['memories', 'new'])} data-testid="memory-new">
          New memory
        </a>
      </div>
      <search className="filters" aria-label="Search memories">
        <Field label="Search" className="grow" hint="Words to rank memories by; leave empty to list the newest.">
          {(id, hint) => (
            <input
              id={id}
              type="search"
              aria-describedby={hint}
              value={search}
              onChange={(event) => filter(() => setSearch(event.target.value))}
              data-testid="memory-search"
            />
          )}
        </Field>
        <Field label="Project">
          {(id) => (
            <input
              id={id}
              type="text"
              placeholder="e.g. acme/backend"
              value={project}
              onChange={(event) => filter(() => setProject(event.target.value))}
              data-testid="memory-filter-project"
            />
          )}
        </Field>
        <Field label="Category">
          {(id) => (
            <input
              id={id}
              type="text"
              value={category}
              onChange={(event) => filter(() => setCategory(event.target.value))}
              data-testid="memory-filter-category"
            />
          )}
        </Field>
        <Field label="Priority">
          {(id) => (
            <select
              id={id}
              value={priority}
              onChange={(event) => filter(() => setPriority(event.target.value as '' | Priority))}
              data-testid="memory-filter-priority"
            >
              <option value="">Any</option>
              {PRIORITIES.map((value) => (
                <option key={value} value={value}>
                  {value[0]?.toUpperCase()}
                  {value.slice(1)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Tags">
          {(id) => (
            <input
              id={id}
              type="text"
              placeholder="all must match"
              value={tags}
              onChange={(event) => filter(() => setTags(event.target.value))}
              data-testid="memory-filter-tag"
            />
          )}
        </Field>
      </search>
      <ErrorAlert error={error} />
      <Notice notice={notice} />
      {memories.error !== undefined && <ErrorAlert error={memories.error} onRetry={memories.reload} />}
      {memories.loading && !memories.data && <Loading label="Loading memories…" />}
      {memories.data && memories.data.memories.length === 0 && (
        <EmptyState title={filtered ? 'No memory matches' : 'No memories yet'}>
          {filtered ? (
            'Try other words or fewer filters. Project filters include sub-projects (acme matches acme/backend).'
          ) : (
            <>
              Memories are facts your AI tools should remember: conventions, decisions, preferences.{' '}
              <a href={href(['memories', 'new'])}>Add the first one</a>, or let a tool save them over MCP.
            </>
          )}
        </EmptyState>
      )}
      {memories.data && memories.data.memories.length > 0 && (
        <>
          <p className="hint" aria-live="polite">
            {searching ? 'Best matches first (score out of the sum of the weights).' : 'Newest changes first.'}
          </p>
          <ul className="rows" aria-busy={memories.loading}>
            {memories.data.memories.map((memory) => (
              <MemoryRow key={memory.memory_id} memory={memory} onDelete={() => remove(memory)} />
            ))}
          </ul>
          <Pager page={page} perPage={PER_PAGE} total={memories.data.total} onPage={setPage} />
        </>
      )}
    </section>
  );
}

function excerpt(text: string, length = 200): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}

function MemoryRow({ memory, onDelete }: { memory: RankedMemory; onDelete: () => void }) {
  const [explain, setExplain] = useState(false);
  const meta = splitMetadata(memory.metadata);
  const otherKeys = Object.keys(meta.other);

  return (
    <li className="row" data-testid="memory-row" data-memory-id={memory.memory_id}>
      <div className="row-head">
        <span className="badge">{memory.project_name ?? 'Global'}</span>
        {meta.category && <span className="badge badge-info">{meta.category}</span>}
        {meta.priority && (
          <span className={meta.priority === 'high' ? 'badge badge-danger' : 'badge'}>{meta.priority} priority</span>
        )}
        {memory.score !== undefined && (
          <span className="score" data-testid="memory-score">
            Score {memory.score.toFixed(3)}
          </span>
        )}
      </div>
      <p className="row-text memory-text">{memory.text}</p>
      <Labels labels={meta.tags} />
      <p className="row-meta">
        Updated {formatDate(memory.updated_at)} · last used {formatDate(memory.last_accessed_at, 'never')}
        {otherKeys.length > 0 && <> · other metadata: {otherKeys.join(', ')}</>}
      </p>
      {explain && memory.score_parts && <ScoreParts parts={memory.score_parts} />}
      <div className="actions">
        {memory.score_parts && (
          <button
            type="button"
            className="button button-small"
            aria-expanded={explain}
            onClick={() => setExplain(!explain)}
            data-testid="memory-explain"
          >
            {explain ? 'Hide score details' : 'Why this score?'}
          </button>
        )}
        <a className="button button-small" href={href(['memories', memory.memory_id])} data-testid="memory-edit">
          Edit
        </a>
        <button
          type="button"
          className="button button-small button-danger"
          onClick={onDelete}
          data-testid="memory-delete"
        >
          Delete
        </button>
      </div>
    </li>
  );
}
