import { useState } from 'react';
import type { Artifact, ArtifactVersionSummary } from '../../../src/contract';
import { useDeleteAndLeave } from '../actions';
import { api } from '../api';
import { ArtifactContent } from '../components/ArtifactContent';
import { Labels } from '../components/Labels';
import { ErrorAlert, Loaded, Loading, Notice } from '../components/Status';
import { Table } from '../components/TableScroll';
import { useFlash } from '../flash';
import { formatBytes, formatDate } from '../format';
import { useResource, useTitle } from '../hooks';
import { href } from '../router';

interface ArtifactPageProps {
  project: string;
  slug: string;
  /** Show this earlier version's content instead of the current one. */
  version?: number;
}

const rawHref = (project: string, slug: string) =>
  `/dashboard/api/artifacts/${encodeURIComponent(project)}/${encodeURIComponent(slug)}/raw`;

export function ArtifactPage({ project, slug, version }: ArtifactPageProps) {
  const artifact = useResource(`artifact:${project}/${slug}`, (signal) => api.artifact(project, slug, signal));
  const old = useResource(`artifact:${project}/${slug}@${version ?? ''}`, (signal) =>
    version === undefined ? Promise.resolve(undefined) : api.artifactVersion(project, slug, version, signal),
  );
  const notice = useFlash();
  useTitle(artifact.data?.title ?? 'Artifact');

  if (artifact.error !== undefined) {
    return (
      <section className="page">
        <Breadcrumb project={project} />
        <h1>Artifact</h1>
        <ErrorAlert error={artifact.error} onRetry={artifact.reload} />
      </section>
    );
  }
  if (!artifact.data) return <Loading label="Loading the artifact…" />;
  const current = artifact.data;
  const showingOld = version !== undefined && version !== current.version;

  return (
    <article className="page">
      <Breadcrumb project={project} />
      <Notice notice={notice} />
      <Header artifact={current} />
      {showingOld && (
        <div className="alert alert-info" role="status">
          You are looking at version {version}
          {old.data && <> from {formatDate(old.data.created_at)}</>}. The current version is {current.version}.{' '}
          <a href={href(['artifacts', project, slug])}>Show the current version</a>
        </div>
      )}
      <section className="card" aria-label="Content">
        {showingOld ? (
          <Loaded resource={old} loading={`Loading version ${version}…`}>
            {(data) => data && <ArtifactContent content={data.content} contentType={data.content_type} />}
          </Loaded>
        ) : (
          <ArtifactContent content={current.content} contentType={current.content_type} />
        )}
      </section>
      <Versions project={project} slug={slug} shown={showingOld ? version : current.version} />
    </article>
  );
}

function Breadcrumb({ project }: { project: string }) {
  return (
    <p className="breadcrumb">
      <a href={href(['artifacts'])}>Artifacts</a> › <a href={href(['artifacts'], { project })}>{project}</a>
    </p>
  );
}

function Header({ artifact }: { artifact: Artifact }) {
  const [error, setError] = useState<unknown>();
  const deleteAndLeave = useDeleteAndLeave(setError);

  const remove = () =>
    deleteAndLeave({
      question: {
        title: `Delete “${artifact.title}”?`,
        message: 'The artifact and all its kept versions are deleted for good.',
        confirmLabel: 'Delete artifact',
      },
      work: () => api.deleteArtifact(artifact.project, artifact.slug),
      done: `“${artifact.title}” was deleted.`,
      to: href(['artifacts'], { project: artifact.project }),
    });

  return (
    <header className="stack-small">
      <div className="page-head">
        <h1 data-testid="artifact-heading">{artifact.title}</h1>
        <div className="actions">
          <a
            className="button"
            href={href(['artifacts', artifact.project, artifact.slug, 'edit'])}
            data-testid="artifact-edit"
          >
            Edit
          </a>
          <a className="button" href={rawHref(artifact.project, artifact.slug)} target="_blank" rel="noopener">
            Raw
          </a>
          <button type="button" className="button button-danger" onClick={remove} data-testid="artifact-delete">
            Delete
          </button>
        </div>
      </div>
      <ErrorAlert error={error} />
      {artifact.description && <p className="lead">{artifact.description}</p>}
      <p className="row-meta">
        <code>{artifact.slug}</code> · {artifact.content_type} · version {artifact.version} ·{' '}
        {formatBytes(artifact.size_bytes)} · updated {formatDate(artifact.updated_at)}
      </p>
      <Labels labels={artifact.labels} />
    </header>
  );
}

function Versions({ project, slug, shown }: { project: string; slug: string; shown: number | undefined }) {
  const versions = useResource(`versions:${project}/${slug}`, (signal) => api.artifactVersions(project, slug, signal));
  return (
    <section className="card" aria-labelledby="versions-heading">
      <h2 id="versions-heading">Versions</h2>
      <p className="hint">A new version is kept each time the content changes.</p>
      <Loaded resource={versions} loading="Loading versions…">
        {(data) => (
          <Table label="Versions" columns={['Version', 'Saved', 'Size', 'Type', 'Actions']} testId="artifact-versions">
            {data.versions.map((item) => (
              <VersionRow key={item.version} project={project} slug={slug} item={item} shown={shown} />
            ))}
          </Table>
        )}
      </Loaded>
    </section>
  );
}

interface VersionRowProps {
  project: string;
  slug: string;
  item: ArtifactVersionSummary;
  shown: number | undefined;
}

function VersionRow({ project, slug, item, shown }: VersionRowProps) {
  const target = item.current
    ? href(['artifacts', project, slug])
    : href(['artifacts', project, slug, 'versions', item.version]);
  return (
    <tr data-testid="artifact-version-row" aria-current={item.version === shown ? 'true' : undefined}>
      <td className="cell-nowrap">
        {item.version}
        {item.current && <span className="badge badge-ok">current</span>}
      </td>
      <td className="cell-nowrap">{formatDate(item.created_at)}</td>
      <td className="cell-nowrap">{formatBytes(item.size_bytes)}</td>
      <td className="cell-wrap">{item.content_type}</td>
      <td>
        {item.version === shown ? (
          <span className="hint">Shown</span>
        ) : (
          <a href={target} data-testid="artifact-version-view">
            View
          </a>
        )}
      </td>
    </tr>
  );
}
