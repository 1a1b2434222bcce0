import { type FormEvent, useEffect, useMemo, useState } from 'react';
import {
  COMMIT_MESSAGE_MAX,
  type CreatePromptInput,
  PROMPT_CONTENT_MAX,
  PROMPT_DESCRIPTION_MAX,
  PROMPT_TITLE_MAX,
  type Prompt,
  type PromptStatus,
  SLUG_MAX,
} from '../../../src/contract';
import { ApiError, api } from '../api';
import { setFlash } from '../flash';
import { splitList } from '../format';
import { useResource } from '../hooks';
import { allSlugs, bare } from '../prompt-slugs';
import { href, navigate } from '../router';
import { type SchemaDraft, toDrafts, toSchema } from '../schema-draft';
import { extractVariables } from '../template';
import { useConfirm } from './Confirm';
import { Field } from './Field';
import { PromptPreview, unjudgedReferences } from './PromptPreview';
import { ReferencedBy } from './ReferencedBy';
import { SaveConflict } from './SaveConflict';
import { ErrorAlert } from './Status';
import { VariableSchemaEditor } from './VariableSchemaEditor';

interface PromptFormProps {
  prompt: Prompt | undefined;
  onSaved: (message: string) => void;
  onReload: () => void;
}

/** The fields of a prompt, its variable schema and the live preview; saves with If-Match. */
export function PromptForm({ prompt, onSaved, onReload }: PromptFormProps) {
  const confirm = useConfirm();
  const [title, setTitle] = useState(prompt?.title ?? '');
  const [slug, setSlug] = useState('');
  const [description, setDescription] = useState(prompt?.description ?? '');
  const [content, setContent] = useState(prompt?.content ?? '');
  const [status, setStatus] = useState<PromptStatus>(prompt?.status ?? 'draft');
  const [inMcp, setInMcp] = useState(prompt?.available_in_mcp ?? false);
  const [labels, setLabels] = useState(prompt?.labels.join(', ') ?? '');
  const [drafts, setDrafts] = useState<SchemaDraft>(() => toDrafts(prompt?.variable_schema));
  const [commitMessage, setCommitMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [conflict, setConflict] = useState(false);

  const variables = useMemo(() => extractVariables(content), [content]);
  // The server judged the saved content's references; the user's slugs are read only for new ones.
  const saved = useMemo(
    () => ({ references: (prompt?.references ?? []).map(bare), broken: (prompt?.broken_references ?? []).map(bare) }),
    [prompt],
  );
  const needSlugs = unjudgedReferences(content, saved.references).length > 0;
  const [wantSlugs, setWantSlugs] = useState(needSlugs);
  useEffect(() => {
    if (needSlugs) setWantSlugs(true);
  }, [needSlugs]);
  const slugs = useResource(`prompt-slugs:${wantSlugs}`, (signal) =>
    wantSlugs ? allSlugs(signal) : Promise.resolve(undefined),
  );
  // The prompt being written counts as existing for its own references.
  const known = slugs.data && prompt ? new Set([...slugs.data, prompt.slug]) : slugs.data;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const schema = toSchema(drafts, variables);
    const input: CreatePromptInput = {
      title: title.trim(),
      description: description.trim(),
      content,
      status,
      available_in_mcp: inMcp,
      labels: splitList(labels),
      ...((prompt || Object.keys(schema).length > 0) && { variable_schema: schema }),
      ...(commitMessage.trim() && { commit_message: commitMessage.trim() }),
    };
    setBusy(true);
    setError(undefined);
    setConflict(false);
    try {
      if (prompt) {
        const saved = await api.updatePrompt(prompt.id, input, prompt.version);
        setBusy(false);
        setCommitMessage('');
        onSaved(
          saved.version === prompt.version
            ? `“${input.title}” was saved (no new version: only status or MCP availability changed, or nothing).`
            : `“${input.title}” was saved as version ${saved.version}.`,
        );
      } else {
        const created = await api.createPrompt({ ...input, ...(slug.trim() && { slug: slug.trim() }) });
        setFlash(`“${created.title}” was created as @${created.slug}.`);
        navigate(href(['prompts']));
      }
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 412) setConflict(true);
      else setError(caught);
      setBusy(false);
    }
  };

  const remove = async () => {
    if (!prompt) return;
    const ok = await confirm({
      title: `Delete “${prompt.title}”?`,
      message: `The prompt @${prompt.slug} and its history are deleted for good. Prompts that reference it will have a broken reference.`,
      confirmLabel: 'Delete prompt',
      danger: true,
    });
    if (!ok) return;
    setError(undefined);
    try {
      await api.deletePrompt(prompt.id);
      setFlash(`“${prompt.title}” was deleted.`);
      navigate(href(['prompts']));
    } catch (caught) {
      setError(caught);
    }
  };

  const details = error instanceof ApiError ? error.details : undefined;
  return (
    <div className="editor">
      <form className="card stack" onSubmit={submit} aria-label="Prompt">
        {conflict && prompt && <SaveConflict slug={prompt.slug} loaded={prompt.version} onReload={onReload} />}
        <ErrorAlert error={error} />
        <Field label="Title">
          {(id) => (
            <input
              id={id}
              type="text"
              required
              maxLength={PROMPT_TITLE_MAX}
              value={title}
              onChange={(event) => setTitle(event.target.value)}
              data-testid="prompt-title"
            />
          )}
        </Field>
        {!prompt && (
          <Field
            label="Slug (optional)"
            hint="How tools and other prompts refer to it (@slug). Lowercase letters, digits and single hyphens; made from the title when empty. It cannot be changed later."
          >
            {(id, hint) => (
              <input
                id={id}
                type="text"
                maxLength={SLUG_MAX}
                pattern="[a-z0-9]+(-[a-z0-9]+)*"
                aria-describedby={hint}
                value={slug}
                onChange={(event) => setSlug(event.target.value)}
                data-testid="prompt-slug"
              />
            )}
          </Field>
        )}
        <Field label="Description" hint={`Optional, up to ${PROMPT_DESCRIPTION_MAX} characters.`}>
          {(id, hint) => (
            <input
              id={id}
              type="text"
              maxLength={PROMPT_DESCRIPTION_MAX}
              aria-describedby={hint}
              value={description}
              onChange={(event) => setDescription(event.target.value)}
              data-testid="prompt-description"
            />
          )}
        </Field>
        <Field
          label="Content"
          hint={
            <>
              Use <code>{'{{ name }}'}</code> for variables and <code>@slug</code> to include another prompt.
            </>
          }
        >
          {(id, hint) => (
            <textarea
              id={id}
              required
              rows={14}
              maxLength={PROMPT_CONTENT_MAX}
              aria-describedby={hint}
              value={content}
              onChange={(event) => setContent(event.target.value)}
              data-testid="prompt-content"
            />
          )}
        </Field>
        <div className="field-row">
          <Field label="Status">
            {(id) => (
              <select
                id={id}
                value={status}
                onChange={(event) => setStatus(event.target.value as PromptStatus)}
                data-testid="prompt-status"
              >
                <option value="draft">Draft</option>
                <option value="published">Published</option>
              </select>
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
                data-testid="prompt-labels"
              />
            )}
          </Field>
        </div>
        <label className="check">
          <input
            type="checkbox"
            checked={inMcp}
            onChange={(event) => setInMcp(event.target.checked)}
            data-testid="prompt-mcp"
          />
          <span>
            <strong>Available in MCP</strong>
            <span className="check-help">List it as an MCP prompt for clients using a key with MCP access.</span>
          </span>
        </label>
        <VariableSchemaEditor
          variables={variables}
          drafts={drafts}
          onChange={(name, draft) => setDrafts((previous) => ({ ...previous, [name]: draft }))}
          details={details}
        />
        <Field
          label="Commit message (optional)"
          hint="What changed and why; shown in the history of versions."
          error={details?.commit_message}
        >
          {(id, describedBy, invalid) => (
            <input
              id={id}
              type="text"
              maxLength={COMMIT_MESSAGE_MAX}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              value={commitMessage}
              onChange={(event) => setCommitMessage(event.target.value)}
              data-testid="prompt-commit-message"
            />
          )}
        </Field>
        <div className="actions">
          <button type="submit" className="button button-primary" disabled={busy} data-testid="prompt-save">
            {busy ? 'Saving…' : prompt ? 'Save changes' : 'Create prompt'}
          </button>
          <a className="button" href={href(['prompts'])}>
            {prompt ? 'Back to prompts' : 'Cancel'}
          </a>
          {prompt && (
            <button
              type="button"
              className="button button-danger push-end"
              onClick={remove}
              data-testid="prompt-delete"
            >
              Delete
            </button>
          )}
        </div>
      </form>
      <PromptPreview content={content} saved={prompt && saved} knownSlugs={known}>
        {prompt && <ReferencedBy promptId={prompt.id} />}
      </PromptPreview>
    </div>
  );
}
