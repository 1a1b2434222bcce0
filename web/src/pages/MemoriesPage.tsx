import { useState } from 'react';
import type { Priority, RankedMemory } from '../../../src/contract';
import { useRowAction } from '../actions';
import { api } from '../api';
import { SelectField, TextField } from '../components/Field';
import { Labels } from '../components/Labels';
import { ListHead, RowDeleteButton, RowEditLink } from '../components/ListPage';
import { Pager } from '../components/Pager';
import { PriorityOptions } from '../components/PriorityOptions';
import { ScoreParts } from '../components/ScoreParts';
import { EmptyState, ErrorAlert, Loaded, Notice } from '../components/Status';
import { useFlash } from '../flash';
import { formatDate, splitList } from '../format';
import { useListFilters, useResource, useTitle } from '../hooks';
import { splitMetadata } from '../metadata';
import { href } from '../router';

const PER_PAGE = 20;

export function MemoriesPage() {
  useTitle('Memories');
  const list = useListFilters({
    search: '',
    project: '',
    category: '',
    priority: '' as '' | Priority,
    tags: '',
    show: '' as '' | 'all' | 'stale',
  });
  const notice = useFlash();
  const { filters, typed, set, page } = list;
  const searching = typed.search !== '';
  const query = {
    ...(searching && { search: typed.search, explain: true }),
    project_name: typed.project,
    category: typed.category,
    priority: filters.priority,
    tag: splitList(typed.tags),
    ...(filters.show === 'all' && { include_expired: true }),
    ...(filters.show === 'stale' && { stale: true }),
    page,
    per_page: PER_PAGE,
  };
  const memories = useResource(JSON.stringify(query), (signal) => api.memories(query, signal));
  const filtered = Boolean(
    searching || typed.project || typed.category || filters.priority || query.tag.length || filters.show,
  );
  const action = useRowAction(notice, memories.reload);

  const remove = (memory: RankedMemory) =>
    action.act({
      question: {
        title: 'Delete this memory?',
        message: <blockquote className="quote">{excerpt(memory.text)}</blockquote>,
        confirmLabel: 'Delete memory',
      },
      work: () => api.deleteMemory(memory.memory_id),
      done: 'The memory was deleted.',
    });

  return (
    <section className="page">
      <ListHead
        title="Memories"
        create={{ href: href(['memories', 'new']), label: 'New memory', testId: 'memory-new' }}
      />
      <search className="filters" aria-label="Search memories">
        <TextField
          label="Search"
          className="grow"
          hint="Words to rank memories by; leave empty to list the newest."
          type="search"
          value={filters.search}
          onChange={set('search')}
          testId="memory-search"
        />
        <TextField
          label="Project"
          placeholder="e.g. acme/backend"
          value={filters.project}
          onChange={set('project')}
          testId="memory-filter-project"
        />
        <TextField
          label="Category"
          value={filters.category}
          onChange={set('category')}
          testId="memory-filter-category"
        />
        <SelectField
          label="Priority"
          value={filters.priority}
          onChange={set('priority')}
          testId="memory-filter-priority"
        >
          <PriorityOptions none="Any" />
        </SelectField>
        <TextField
          label="Tags"
          placeholder="all must match"
          value={filters.tags}
          onChange={set('tags')}
          testId="memory-filter-tag"
        />
        <SelectField label="Show" value={filters.show} onChange={set('show')} testId="memory-filter-show">
          <option value="">Current</option>
          <option value="all">Current and stale</option>
          <option value="stale">Stale only</option>
        </SelectField>
      </search>
      <ErrorAlert error={action.error} />
      <Notice notice={notice} />
      <Loaded resource={memories} loading="Loading memories…">
        {(data) =>
          data.memories.length === 0 ? (
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
          ) : (
            <>
              <p className="hint" aria-live="polite">
                {searching ? 'Best matches first (score out of the sum of the weights).' : 'Newest changes first.'}
              </p>
              <ul className="rows" aria-busy={memories.loading}>
                {data.memories.map((memory) => (
                  <MemoryRow key={memory.memory_id} memory={memory} onDelete={() => remove(memory)} />
                ))}
              </ul>
              <Pager page={page} perPage={PER_PAGE} total={data.total} onPage={list.setPage} />
            </>
          )
        }
      </Loaded>
    </section>
  );
}

function excerpt(text: string, length = 200): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}

/**
 * Pinned (always in its project's context), superseded (replaced by a newer memory), expired, or expiring:
 * the last three are what the "stale" filter lists, hidden from search and context.
 */
export function LifecycleBadges({ memory }: { memory: Pick<RankedMemory, 'pinned' | 'expires_at' | 'superseded_by'> }) {
  const expired = memory.expires_at !== null && Date.parse(memory.expires_at) <= Date.now();
  return (
    <>
      {memory.pinned && (
        <span className="badge badge-info" data-testid="memory-pinned">
          Pinned
        </span>
      )}
      {memory.superseded_by && !memory.pinned && (
        <a className="badge" href={href(['memories', memory.superseded_by])} data-testid="memory-superseded">
          Superseded by {memory.superseded_by}
        </a>
      )}
      {memory.expires_at &&
        (expired && !memory.pinned ? (
          <span className="badge badge-danger" data-testid="memory-expired">
            Expired {formatDate(memory.expires_at)}
          </span>
        ) : (
          <span className="badge" data-testid="memory-expires">
            Expires {formatDate(memory.expires_at)}
          </span>
        ))}
    </>
  );
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
        <LifecycleBadges memory={memory} />
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
        <RowEditLink href={href(['memories', memory.memory_id])} testId="memory-edit" />
        <RowDeleteButton onClick={onDelete} testId="memory-delete" />
      </div>
    </li>
  );
}
