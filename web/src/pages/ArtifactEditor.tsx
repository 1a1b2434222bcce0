import { type FormEvent, useState } from 'react';
import {
  ARTIFACT_DESCRIPTION_MAX,
  ARTIFACT_TITLE_MAX,
  type Artifact,
  CONTENT_TYPE_MAX,
  PROJECT_MAX,
  SLUG_MAX,
} from '../../../src/contract';
import { api } from '../api';
import { ArtifactContent, isMarkdown } from '../components/ArtifactContent';
import { Field } from '../components/Field';
import { ErrorAlert, Loading } from '../components/Status';
import { setFlash } from '../flash';
import { splitList } from '../format';
import { useResource, useTitle } from '../hooks';
import { href, navigate } from '../router';

const COMMON_TYPES = ['text/markdown', 'text/plain', 'application/json', 'text/csv', 'text/html', 'image/svg+xml'];

interface ArtifactEditorProps {
  /** Edit this artifact; without project and slug a new one is created. */
  project?: string;
  slug?: string;
  initialProject?: string;
}

export function ArtifactEditor({ project, slug, initialProject = '' }: ArtifactEditorProps) {
  const editing = project !== undefined && slug !== undefined;
  useTitle(editing ? 'Edit artifact' : 'New artifact');
  const existing = useResource(`artifact-edit:${project ?? ''}/${slug ?? ''}`, (signal) =>
    editing ? api.artifact(project, slug, signal) : Promise.resolve(undefined),
  );
  if (editing && existing.error !== undefined) {
    return (
      <section className="page">
        <h1>Edit artifact</h1>
        <ErrorAlert error={existing.error} onRetry={existing.reload} />
        <p>
          <a href={href(['artifacts'])}>Back to your artifacts</a>
        </p>
      </section>
    );
  }
  if (editing && !existing.data) return <Loading label="Loading the artifact…" />;
  return <ArtifactForm artifact={existing.data} initialProject={initialProject} />;
}

function ArtifactForm({ artifact, initialProject }: { artifact: Artifact | undefined; initialProject: string }) {
  const [project, setProject] = useState(artifact?.project ?? initialProject);
  const [slug, setSlug] = useState('');
  const [title, setTitle] = useState(artifact?.title ?? '');
  const [description, setDescription] = useState(artifact?.description ?? '');
  const [content, setContent] = useState(artifact?.content ?? '');
  const [contentType, setContentType] = useState(artifact?.content_type ?? 'text/markdown');
  const [labels, setLabels] = useState(artifact?.labels.join(', ') ?? '');
  const [preview, setPreview] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const fields = {
      title: title.trim(),
      description: description.trim(),
      content,
      content_type: contentType.trim() || 'text/markdown',
      labels: splitList(labels),
    };
    setBusy(true);
    setError(undefined);
    try {
      const written = artifact
        ? await api.updateArtifact(artifact.project, artifact.slug, artifact.version, fields)
        : await api.createArtifact({ ...fields, project: project.trim(), ...(slug.trim() && { slug: slug.trim() }) });
      setFlash(written.message || 'Saved.');
      navigate(href(['artifacts', written.project, written.slug]));
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  const back = artifact ? href(['artifacts', artifact.project, artifact.slug]) : href(['artifacts']);
  return (
    <section className="page">
      <p className="breadcrumb">
        <a href={href(['artifacts'])}>Artifacts</a>
        {artifact && (
          <>
            {' › '}
            <a href={href(['artifacts'], { project: artifact.project })}>{artifact.project}</a>
          </>
        )}
      </p>
      <h1>{artifact ? `Edit “${artifact.title}”` : 'New artifact'}</h1>
      <form className="card stack" onSubmit={submit} aria-label="Artifact">
        <ErrorAlert error={error} />
        <div className="field-row">
          <Field
            label="Project"
            className="grow"
            hint={
              artifact ? 'The project cannot be changed.' : 'Required, e.g. acme/backend. Segments joined by single /.'
            }
          >
            {(id, hint) => (
              <input
                id={id}
                type="text"
                required
                maxLength={PROJECT_MAX}
                pattern="[A-Za-z0-9._\-]+(/[A-Za-z0-9._\-]+)*"
                readOnly={Boolean(artifact)}
                aria-describedby={hint}
                value={project}
                onChange={(event) => setProject(event.target.value)}
                data-testid="artifact-project"
              />
            )}
          </Field>
          {!artifact && (
            <Field label="Slug (optional)" className="grow" hint="Made from the title when empty; cannot change later.">
              {(id, hint) => (
                <input
                  id={id}
                  type="text"
                  maxLength={SLUG_MAX}
                  pattern="[a-z0-9]+(-[a-z0-9]+)*"
                  aria-describedby={hint}
                  value={slug}
                  onChange={(event) => setSlug(event.target.value)}
                  data-testid="artifact-slug"
                />
              )}
            </Field>
          )}
        </div>
        <Field label="Title">
          {(id) => (
            <input
              id={id}
              type="text"
              required
              maxLength={ARTIFACT_TITLE_MAX}
              value={title}
              onChange={(event) => setTitle(event.target.value)}
              data-testid="artifact-title"
            />
          )}
        </Field>
        <Field label="Description" hint={`Optional, up to ${ARTIFACT_DESCRIPTION_MAX} characters.`}>
          {(id, hint) => (
            <input
              id={id}
              type="text"
              maxLength={ARTIFACT_DESCRIPTION_MAX}
              aria-describedby={hint}
              value={description}
              onChange={(event) => setDescription(event.target.value)}
              data-testid="artifact-description"
            />
          )}
        </Field>
        <div className="field-row">
          <Field label="Content type" hint="A MIME type. Markdown is rendered; anything else is shown as text.">
            {(id, hint) => (
              <>
                <input
                  id={id}
                  type="text"
                  list={`${id}-types`}
                  maxLength={CONTENT_TYPE_MAX}
                  aria-describedby={hint}
                  value={contentType}
                  onChange={(event) => setContentType(event.target.value)}
                  data-testid="artifact-content-type"
                />
                <datalist id={`${id}-types`}>
                  {COMMON_TYPES.map((type) => (
                    <option key={type} value={type} />
                  ))}
                </datalist>
              </>
            )}
          </Field>
          <Field label="Labels" hint="Comma-separated, at most 10." className="grow">
            {(id, hint) => (
              <input
                id={id}
                type="text"
                aria-describedby={hint}
                value={labels}
                onChange={(event) => setLabels(event.target.value)}
                data-testid="artifact-labels"
              />
            )}
          </Field>
        </div>
        <Field label="Content">
          {(id) => (
            <textarea
              id={id}
              rows={18}
              className="mono"
              value={content}
              onChange={(event) => setContent(event.target.value)}
              data-testid="artifact-content"
            />
          )}
        </Field>
        <label className="check">
          <input type="checkbox" checked={preview} onChange={(event) => setPreview(event.target.checked)} />
          <span>Show a preview {isMarkdown(contentType) ? '(rendered Markdown)' : '(as plain text)'}</span>
        </label>
        {preview && (
          <section className="preview-box" aria-label="Preview">
            <ArtifactContent content={content} contentType={contentType} />
          </section>
        )}
        <div className="actions">
          <button type="submit" className="button button-primary" disabled={busy} data-testid="artifact-save">
            {busy ? 'Saving…' : artifact ? 'Save changes' : 'Create artifact'}
          </button>
          <a className="button" href={back}>
            Cancel
          </a>
        </div>
        {artifact && (
          <p className="hint">
            You are editing version {artifact.version}. If someone saves a newer version first, Cairn refuses this save
            instead of overwriting it.
          </p>
        )}
      </form>
    </section>
  );
}
