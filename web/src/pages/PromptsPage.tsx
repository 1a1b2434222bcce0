import { useState } from 'react';
import type { PromptStatus, PromptSummary } from '../../../src/contract';
import { api } from '../api';
import { useConfirm } from '../components/Confirm';
import { Field } from '../components/Field';
import { Labels } from '../components/Labels';
import { Pager } from '../components/Pager';
import { EmptyState, ErrorAlert, Loading, Notice } from '../components/Status';
import { useFlash } from '../flash';
import { formatDate, splitList } from '../format';
import { useDebounced, useResource, useTitle } from '../hooks';
import { href } from '../router';

const PER_PAGE = 20;

export function PromptsPage() {
  useTitle('Prompts');
  const [search, setSearch] = useState('');
  const [labels, setLabels] = useState('');
  const [status, setStatus] = useState<'' | PromptStatus>('');
  const [page, setPage] = useState(1);
  const notice = useFlash();
  const [error, setError] = useState<unknown>();
  const confirm = useConfirm();

  const debouncedSearch = useDebounced(search.trim());
  const debouncedLabels = useDebounced(labels);
  const query = { search: debouncedSearch, label: splitList(debouncedLabels), status, page, per_page: PER_PAGE };
  const prompts = useResource(JSON.stringify(query), (signal) => api.prompts(query, signal));
  const filtered = Boolean(query.search || query.label.length || query.status);

  const filter = (change: () => void) => {
    change();
    setPage(1);
  };

  const remove = async (prompt: PromptSummary) => {
    const ok = await confirm({
      title: `Delete “${prompt.title}”?`,
      message: `The prompt @${prompt.slug} is deleted for good. Prompts that reference it will have a broken reference.`,
      confirmLabel: 'Delete prompt',
      danger: true,
    });
    if (!ok) return;
    setError(undefined);
    notice.clear();
    try {
      await api.deletePrompt(prompt.id);
      notice.show(`“${prompt.title}” was deleted.`);
    } catch (caught) {
      setError(caught);
    }
    prompts.reload();
  };

  return (
    <section className="page">
      <div className="page-head">
        <h1>Prompts</h1>
        <a className="button button-primary" href={href(['prompts', 'new'])} data-testid="prompt-new">
          New prompt
        </a>
      </div>
      <search className="filters" aria-label="Filter prompts">
        <Field label="Search" className="grow">
          {(id) => (
            <input
              id={id}
              type="search"
              placeholder="Words in title, description or content"
              value={search}
              onChange={(event) => filter(() => setSearch(event.target.value))}
              data-testid="prompt-search"
            />
          )}
        </Field>
        <Field label="Labels">
          {(id) => (
            <input
              id={id}
              type="text"
              placeholder="e.g. review, python"
              value={labels}
              onChange={(event) => filter(() => setLabels(event.target.value))}
              data-testid="prompt-label-filter"
            />
          )}
        </Field>
        <Field label="Status">
          {(id) => (
            <select
              id={id}
              value={status}
              onChange={(event) => filter(() => setStatus(event.target.value as '' | PromptStatus))}
              data-testid="prompt-status-filter"
            >
              <option value="">Any</option>
              <option value="draft">Draft</option>
              <option value="published">Published</option>
            </select>
          )}
        </Field>
      </search>
      <ErrorAlert error={error} />
      <Notice notice={notice} />
      {prompts.error !== undefined && <ErrorAlert error={prompts.error} onRetry={prompts.reload} />}
      {prompts.loading && !prompts.data && <Loading label="Loading prompts…" />}
      {prompts.data && prompts.data.prompts.length === 0 && (
        <EmptyState title={filtered ? 'No prompt matches these filters' : 'No prompts yet'}>
          {filtered ? (
            'Try fewer words or labels, or set the status to Any.'
          ) : (
            <>
              Prompts are reusable instructions for your AI tools. <a href={href(['prompts', 'new'])}>Write one</a>; use{' '}
              <code>{'{{ name }}'}</code> for variables and <code>@slug</code> to include another prompt.
            </>
          )}
        </EmptyState>
      )}
      {prompts.data && prompts.data.prompts.length > 0 && (
        <>
          <ul className="rows" aria-busy={prompts.loading}>
            {prompts.data.prompts.map((prompt) => (
              <li key={prompt.id} className="row" data-testid="prompt-row" data-slug={prompt.slug}>
                <div className="row-head">
                  <a className="row-title" href={href(['prompts', prompt.slug, 'edit'])} data-testid="prompt-link">
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
                  <a
                    className="button button-small"
                    href={href(['prompts', prompt.slug, 'edit'])}
                    data-testid="prompt-edit"
                  >
                    Edit
                  </a>
                  <button
                    type="button"
                    className="button button-small button-danger"
                    onClick={() => remove(prompt)}
                    data-testid="prompt-delete"
                  >
                    Delete
                  </button>
                </div>
              </li>
            ))}
          </ul>
          <Pager page={page} perPage={PER_PAGE} total={prompts.data.total} onPage={setPage} />
        </>
      )}
    </section>
  );
}
