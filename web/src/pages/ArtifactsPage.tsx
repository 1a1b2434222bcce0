import { useState } from 'react';
import { type ArtifactSummary, MAX_PER_PAGE } from '../../../src/contract';
import { api } from '../api';
import { Field } from '../components/Field';
import { Labels } from '../components/Labels';
import { Pager } from '../components/Pager';
import { EmptyState, ErrorAlert, Loading, Notice } from '../components/Status';
import { useFlash } from '../flash';
import { formatBytes, formatDate } from '../format';
import { useDebounced, useResource, useTitle } from '../hooks';
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
  const [project, setProject] = useState(initialProject ?? '');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const notice = useFlash();

  const typedNow = { project: project.trim(), search: search.trim() };
  const typed = JSON.parse(useDebounced(JSON.stringify(typedNow))) as typeof typedNow;
  const query = { project: typed.project, search: typed.search, page, per_page: PER_PAGE };
  const artifacts = useResource(JSON.stringify(query), (signal) => api.artifacts(query, signal));
  const filtered = Boolean(typed.project || typed.search);
  const groups = artifacts.data ? groupByProject(artifacts.data.artifacts) : [];

  const filter = (change: () => void) => {
    change();
    setPage(1);
  };

  return (
    <section className="page">
      <div className="page-head">
        <h1>Artifacts</h1>
        <a
          className="button button-primary"
          href={href(['artifacts', 'new'], { project: typed.project })}
          data-testid="artifact-new"
        >
          New artifact
        </a>
      </div>
      <search className="filters" aria-label="Filter artifacts">
        <Field label="Project" hint="Includes its sub-projects.">
          {(id, hint) => (
            <input
              id={id}
              type="text"
              placeholder="e.g. acme/backend"
              aria-describedby={hint}
              value={project}
              onChange={(event) => filter(() => setProject(event.target.value))}
              data-testid="artifact-filter-project"
            />
          )}
        </Field>
        <Field label="Search" className="grow">
          {(id) => (
            <input
              id={id}
              type="search"
              placeholder="Words in title, description or content"
              value={search}
              onChange={(event) => filter(() => setSearch(event.target.value))}
              data-testid="artifact-search"
            />
          )}
        </Field>
      </search>
      <Notice notice={notice} />
      {artifacts.error !== undefined && <ErrorAlert error={artifacts.error} onRetry={artifacts.reload} />}
      {artifacts.loading && !artifacts.data && <Loading label="Loading artifacts…" />}
      {artifacts.data && groups.length === 0 && (
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
      )}
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
      {artifacts.data && <Pager page={page} perPage={PER_PAGE} total={artifacts.data.total} onPage={setPage} />}
    </section>
  );
}
