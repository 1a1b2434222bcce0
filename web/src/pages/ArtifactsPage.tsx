import { type ArtifactSummary, MAX_PER_PAGE } from '../../../src/contract';
import { api } from '../api';
import { ContentSearchField, TextField } from '../components/Field';
import { Labels } from '../components/Labels';
import { ListHead } from '../components/ListPage';
import { Pager } from '../components/Pager';
import { EmptyState, Loaded, Notice } from '../components/Status';
import { useFlash } from '../flash';
import { formatBytes, formatDate } from '../format';
import { useListFilters, useResource, useTitle } from '../hooks';
import { href } from '../router';

// Artifacts are grouped by project on one screen: as many per page as the server gives.
const PER_PAGE = MAX_PER_PAGE;

/** Artifacts grouped by project, in project order; within a project newest first (as the API lists them). */
function groupByProject(artifacts: ArtifactSummary[]): [string, ArtifactSummary[]][] {
  const groups = new Map<string, ArtifactSummary[]>();
  for (const artifact of artifacts) {
    const list = groups.get(artifact.project);
    if (list) list.push(artifact);
    else groups.set(artifact.project, [artifact]);
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b));
}

export function ArtifactsPage({ project: initialProject }: { project: string | null }) {
  useTitle('Artifacts');
  const list = useListFilters({ project: initialProject ?? '', search: '' });
  const notice = useFlash();
  const { filters, typed, set, page } = list;
  const query = { project: typed.project, search: typed.search, page, per_page: PER_PAGE };
  const artifacts = useResource(JSON.stringify(query), (signal) => api.artifacts(query, signal));
  const filtered = Boolean(typed.project || typed.search);
  const groups = artifacts.data ? groupByProject(artifacts.data.artifacts) : [];
  const create = { href: href(['artifacts', 'new'], { project: typed.project }), label: 'New artifact' };

  return (
    <section className="page">
      <ListHead title="Artifacts" create={{ ...create, testId: 'artifact-new' }} />
      <search className="filters" aria-label="Filter artifacts">
        <TextField
          label="Project"
          hint="Includes its sub-projects."
          placeholder="e.g. acme/backend"
          value={filters.project}
          onChange={set('project')}
          testId="artifact-filter-project"
        />
        <ContentSearchField value={filters.search} onChange={set('search')} testId="artifact-search" />
      </search>
      <Notice notice={notice} />
      <Loaded resource={artifacts} loading="Loading artifacts…">
        {() =>
          groups.length === 0 && (
            <EmptyState title={filtered ? 'No artifact matches' : 'No artifacts yet'}>
              {filtered ? (
                'Check the project name, or search for fewer words.'
              ) : (
                <>
                  Artifacts are documents your AI tools produce and reuse: design notes, plans, reports.{' '}
                  <a href={href(['artifacts', 'new'])}>Create one</a>, or let a tool save one over MCP.
                </>
              )}
            </EmptyState>
          )
        }
      </Loaded>
      {groups.map(([name, items]) => (
        <section key={name} className="group" aria-labelledby={`group-${name}`} data-testid="artifact-group">
          <div className="group-head">
            <h2 id={`group-${name}`}>{name}</h2>
            <span className="actions">
              {typed.project !== name && (
                <a className="button button-small" href={href(['artifacts'], { project: name })}>
                  Only this project
                </a>
              )}
              <a className="button button-small" href={href(['artifacts', 'new'], { project: name })}>
                New here
              </a>
            </span>
          </div>
          <ul className="rows">
            {items.map((artifact) => (
              <li key={artifact.id} className="row" data-testid="artifact-row" data-slug={artifact.slug}>
                <div className="row-head">
                  <a
                    className="row-title"
                    href={href(['artifacts', artifact.project, artifact.slug])}
                    data-testid="artifact-link"
                  >
                    {artifact.title}
                  </a>
                  <span className="badge">{artifact.content_type}</span>
                  <span className="badge">v{artifact.version}</span>
                </div>
                {artifact.description && <p className="row-text">{artifact.description}</p>}
                <Labels labels={artifact.labels} />
                <p className="row-meta">
                  <code>{artifact.slug}</code> · {formatBytes(artifact.size_bytes)} · updated{' '}
                  {formatDate(artifact.updated_at)}
                </p>
              </li>
            ))}
          </ul>
        </section>
      ))}
      {artifacts.data && <Pager page={page} perPage={PER_PAGE} total={artifacts.data.total} onPage={list.setPage} />}
    </section>
  );
}
