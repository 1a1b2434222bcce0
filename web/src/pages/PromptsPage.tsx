import type { PromptStatus, PromptSummary } from '../../../src/contract';
import { useRowAction } from '../actions';
import { api } from '../api';
import { ContentSearchField, SelectField, TextField } from '../components/Field';
import { Labels } from '../components/Labels';
import { ListHead, RowDeleteButton, RowEditLink } from '../components/ListPage';
import { Pager } from '../components/Pager';
import { EmptyState, ErrorAlert, Loaded, Notice } from '../components/Status';
import { StatusOptions } from '../components/StatusOptions';
import { useFlash } from '../flash';
import { formatDate, splitList } from '../format';
import { useListFilters, useResource, useTitle } from '../hooks';
import { href } from '../router';

const PER_PAGE = 20;

export function PromptsPage() {
  useTitle('Prompts');
  const list = useListFilters({ search: '', labels: '', status: '' as '' | PromptStatus });
  const notice = useFlash();
  const { filters, typed, set, page } = list;
  const query = {
    search: typed.search,
    label: splitList(typed.labels),
    status: filters.status,
    page,
    per_page: PER_PAGE,
  };
  const prompts = useResource(JSON.stringify(query), (signal) => api.prompts(query, signal));
  const filtered = Boolean(query.search || query.label.length || query.status);
  const action = useRowAction(notice, prompts.reload);

  const remove = (prompt: PromptSummary) =>
    action.act({
      question: {
        title: `Delete “${prompt.title}”?`,
        message: `The prompt @${prompt.slug} is deleted for good. Prompts that reference it will have a broken reference.`,
        confirmLabel: 'Delete prompt',
      },
      work: () => api.deletePrompt(prompt.id),
      done: `“${prompt.title}” was deleted.`,
    });

  return (
    <section className="page">
      <ListHead
        title="Prompts"
        create={{ href: href(['prompts', 'new']), label: 'New prompt', testId: 'prompt-new' }}
      />
      <search className="filters" aria-label="Filter prompts">
        <ContentSearchField value={filters.search} onChange={set('search')} testId="prompt-search" />
        <TextField
          label="Labels"
          placeholder="e.g. review, python"
          value={filters.labels}
          onChange={set('labels')}
          testId="prompt-label-filter"
        />
        <SelectField label="Status" value={filters.status} onChange={set('status')} testId="prompt-status-filter">
          <option value="">Any</option>
          <StatusOptions />
        </SelectField>
      </search>
      <ErrorAlert error={action.error} />
      <Notice notice={notice} />
      <Loaded resource={prompts} loading="Loading prompts…">
        {(data) =>
          data.prompts.length === 0 ? (
            <EmptyState title={filtered ? 'No prompt matches these filters' : 'No prompts yet'}>
              {filtered ? (
                'Try fewer words or labels, or set the status to Any.'
              ) : (
                <>
                  Prompts are reusable instructions for your AI tools. <a href={href(['prompts', 'new'])}>Write one</a>
                  {'; use '}
                  <code>{'{{ name }}'}</code> for variables and <code>@slug</code> to include another prompt.
                </>
              )}
            </EmptyState>
          ) : (
            <>
              <ul className="rows" aria-busy={prompts.loading}>
                {data.prompts.map((prompt) => (
                  <PromptRow key={prompt.id} prompt={prompt} onDelete={() => remove(prompt)} />
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

function PromptRow({ prompt, onDelete }: { prompt: PromptSummary; onDelete: () => void }) {
  const edit = href(['prompts', prompt.slug, 'edit']);
  return (
    <li className="row" data-testid="prompt-row" data-slug={prompt.slug}>
      <div className="row-head">
        <a className="row-title" href={edit} data-testid="prompt-link">
          {prompt.title}
        </a>
        <span className={prompt.status === 'published' ? 'badge badge-ok' : 'badge'}>
          {prompt.status === 'published' ? 'Published' : 'Draft'}
        </span>
        {prompt.available_in_mcp && <span className="badge badge-info">MCP</span>}
      </div>
      <p className="row-meta">
        <code>@{prompt.slug}</code> · updated {formatDate(prompt.updated_at)}
      </p>
      {prompt.description && <p className="row-text">{prompt.description}</p>}
      <Labels labels={prompt.labels} />
      <div className="actions">
        <RowEditLink href={edit} testId="prompt-edit" />
        <RowDeleteButton onClick={onDelete} testId="prompt-delete" />
      </div>
    </li>
  );
}
