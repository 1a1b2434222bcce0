import { type FormEvent, useState } from 'react';
import {
  ARTIFACT_DESCRIPTION_MAX,
  type Artifact,
  CONTENT_TYPE_MAX,
  PROJECT_MAX,
  SLUG_MAX,
} from '../../../src/contract';
import { useSubmission } from '../actions';
import { api } from '../api';
import { ArtifactContent, isMarkdown } from '../components/ArtifactContent';
import {
  Field,
  LabelsField,
  PROJECT_PATTERN,
  SLUG_PATTERN,
  TextAreaField,
  TextField,
  TitleField,
} from '../components/Field';
import { FormActions } from '../components/FormActions';
import { ErrorAlert, Loading, PageLoadError } from '../components/Status';
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
    const back = { href: href(['artifacts']), label: 'Back to your artifacts' };
    return <PageLoadError heading="Edit artifact" error={existing.error} onRetry={existing.reload} back={back} />;
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
  const sending = useSubmission();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const fields = {
      title: title.trim(),
      description: description.trim(),
      content,
      content_type: contentType.trim() || 'text/markdown',
      labels: splitList(labels),
    };
    void sending.leave(async () => {
      const written = artifact
        ? await api.updateArtifact(artifact.project, artifact.slug, artifact.version, fields)
        : await api.createArtifact({ ...fields, project: project.trim(), ...(slug.trim() && { slug: slug.trim() }) });
      setFlash(written.message || 'Saved.');
      navigate(href(['artifacts', written.project, written.slug]));
    });
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
        <ErrorAlert error={sending.error} />
        <div className="field-row">
          <TextField
            label="Project"
            className="grow"
            hint={
              artifact ? 'The project cannot be changed.' : 'Required, e.g. acme/backend. Segments joined by single /.'
            }
            required
            maxLength={PROJECT_MAX}
            pattern={PROJECT_PATTERN}
            readOnly={Boolean(artifact)}
            value={project}
            onChange={setProject}
            testId="artifact-project"
          />
          {!artifact && (
            <TextField
              label="Slug (optional)"
              className="grow"
              hint="Made from the title when empty; cannot change later."
              maxLength={SLUG_MAX}
              pattern={SLUG_PATTERN}
              value={slug}
              onChange={setSlug}
              testId="artifact-slug"
            />
          )}
        </div>
        <TitleField value={title} onChange={setTitle} testId="artifact-title" />
        <TextField
          label="Description"
          hint={`Optional, up to ${ARTIFACT_DESCRIPTION_MAX} characters.`}
          maxLength={ARTIFACT_DESCRIPTION_MAX}
          value={description}
          onChange={setDescription}
          testId="artifact-description"
        />
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
          <LabelsField value={labels} onChange={setLabels} testId="artifact-labels" />
        </div>
        <TextAreaField
          label="Content"
          rows={18}
          controlClassName="mono"
          value={content}
          onChange={setContent}
          testId="artifact-content"
        />
        <label className="check">
          <input type="checkbox" checked={preview} onChange={(event) => setPreview(event.target.checked)} />
          <span>Show a preview {isMarkdown(contentType) ? '(rendered Markdown)' : '(as plain text)'}</span>
        </label>
        {preview && (
          <section className="preview-box" aria-label="Preview">
            <ArtifactContent content={content} contentType={contentType} />
          </section>
        )}
        <FormActions
          save={{ busy: sending.busy, label: artifact ? 'Save changes' : 'Create artifact' }}
          cancel={{ href: back, label: 'Cancel' }}
          testId="artifact"
        />
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
