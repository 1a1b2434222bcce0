import { type FormEvent, useEffect, useMemo, useState } from 'react';
import {
  COMMIT_MESSAGE_MAX,
  type CreatePromptInput,
  PROMPT_CONTENT_MAX,
  PROMPT_DESCRIPTION_MAX,
  type Prompt,
  type PromptStatus,
  SLUG_MAX,
} from '../../../src/contract';
import { useDeleteAndLeave, useSubmission } from '../actions';
import { ApiError, api } from '../api';
import { setFlash } from '../flash';
import { splitList } from '../format';
import { useResource } from '../hooks';
import { allSlugs, bare } from '../prompt-slugs';
import { href, navigate } from '../router';
import { type SchemaDraft, toDrafts, toSchema } from '../schema-draft';
import { extractVariables } from '../template';
import { Check } from './Check';
import { LabelsField, SelectField, SLUG_PATTERN, TextAreaField, TextField, TitleField } from './Field';
import { FormActions } from './FormActions';
import { PromptPreview, unjudgedReferences } from './PromptPreview';
import { ReferencedBy } from './ReferencedBy';
import { SaveConflict } from './SaveConflict';
import { ErrorAlert } from './Status';
import { StatusOptions } from './StatusOptions';
import { VariableSchemaEditor } from './VariableSchemaEditor';

interface PromptFormProps {
  prompt: Prompt | undefined;
  onSaved: (message: string) => void;
  onReload: () => void;
}

/** The fields of a prompt, its variable schema and the live preview; saves with If-Match. */
export function PromptForm({ prompt, onSaved, onReload }: PromptFormProps) {
  const [title, setTitle] = useState(prompt?.title ?? '');
  const [slug, setSlug] = useState('');
  const [description, setDescription] = useState(prompt?.description ?? '');
  const [content, setContent] = useState(prompt?.content ?? '');
  const [status, setStatus] = useState<PromptStatus>(prompt?.status ?? 'draft');
  const [inMcp, setInMcp] = useState(prompt?.available_in_mcp ?? false);
  const [labels, setLabels] = useState(prompt?.labels.join(', ') ?? '');
  const [drafts, setDrafts] = useState<SchemaDraft>(() => toDrafts(prompt?.variable_schema));
  const [commitMessage, setCommitMessage] = useState('');
  const sending = useSubmission();
  const deleteAndLeave = useDeleteAndLeave(sending.setError);
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

  const submit = (event: FormEvent) => {
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
    setConflict(false);
    if (prompt) void sending.run(() => update(prompt, input));
    else void sending.leave(() => create(input));
  };

  const update = async (prompt: Prompt, input: CreatePromptInput) => {
    try {
      const saved = await api.updatePrompt(prompt.id, input, prompt.version);
      setCommitMessage('');
      onSaved(
        saved.version === prompt.version
          ? `“${input.title}” was saved (no new version: only status or MCP availability changed, or nothing).`
          : `“${input.title}” was saved as version ${saved.version}.`,
      );
    } catch (caught) {
      // Changed elsewhere since it was loaded: say so, with what to do, instead of a bare error.
      if (caught instanceof ApiError && caught.status === 412) setConflict(true);
      else throw caught;
    }
  };

  const create = async (input: CreatePromptInput) => {
    const created = await api.createPrompt({ ...input, ...(slug.trim() && { slug: slug.trim() }) });
    setFlash(`“${created.title}” was created as @${created.slug}.`);
    navigate(href(['prompts']));
  };

  const remove = (prompt: Prompt) =>
    deleteAndLeave({
      question: {
        title: `Delete “${prompt.title}”?`,
        message: `The prompt @${prompt.slug} and its history are deleted for good. Prompts that reference it will have a broken reference.`,
        confirmLabel: 'Delete prompt',
      },
      work: () => api.deletePrompt(prompt.id),
      done: `“${prompt.title}” was deleted.`,
      to: href(['prompts']),
    });

  const details = sending.error instanceof ApiError ? sending.error.details : undefined;
  return (
    <div className="editor">
      <form className="card stack" onSubmit={submit} aria-label="Prompt">
        {conflict && prompt && <SaveConflict slug={prompt.slug} loaded={prompt.version} onReload={onReload} />}
        <ErrorAlert error={sending.error} />
        <TitleField value={title} onChange={setTitle} testId="prompt-title" />
        {!prompt && (
          <TextField
            label="Slug (optional)"
            hint="How tools and other prompts refer to it (@slug). Lowercase letters, digits and single hyphens; made from the title when empty. It cannot be changed later."
            maxLength={SLUG_MAX}
            pattern={SLUG_PATTERN}
            value={slug}
            onChange={setSlug}
            testId="prompt-slug"
          />
        )}
        <TextField
          label="Description"
          hint={`Optional, up to ${PROMPT_DESCRIPTION_MAX} characters.`}
          maxLength={PROMPT_DESCRIPTION_MAX}
          value={description}
          onChange={setDescription}
          testId="prompt-description"
        />
        <TextAreaField
          label="Content"
          hint={
            <>
              Use <code>{'{{ name }}'}</code> for variables and <code>@slug</code> to include another prompt.
            </>
          }
          required
          rows={14}
          maxLength={PROMPT_CONTENT_MAX}
          value={content}
          onChange={setContent}
          testId="prompt-content"
        />
        <div className="field-row">
          <SelectField
            label="Status"
            value={status}
            onChange={(value) => setStatus(value as PromptStatus)}
            testId="prompt-status"
          >
            <StatusOptions />
          </SelectField>
          <LabelsField value={labels} onChange={setLabels} testId="prompt-labels" />
        </div>
        <Check
          label="Available in MCP"
          help="List it as an MCP prompt for clients using a key with MCP access."
          checked={inMcp}
          onChange={setInMcp}
          testId="prompt-mcp"
        />
        <VariableSchemaEditor
          variables={variables}
          drafts={drafts}
          onChange={(name, draft) => setDrafts((previous) => ({ ...previous, [name]: draft }))}
          details={details}
        />
        <TextField
          label="Commit message (optional)"
          hint="What changed and why; shown in the history of versions."
          error={details?.commit_message}
          maxLength={COMMIT_MESSAGE_MAX}
          value={commitMessage}
          onChange={setCommitMessage}
          testId="prompt-commit-message"
        />
        <FormActions
          save={{ busy: sending.busy, label: prompt ? 'Save changes' : 'Create prompt' }}
          cancel={{ href: href(['prompts']), label: prompt ? 'Back to prompts' : 'Cancel' }}
          onDelete={prompt && (() => remove(prompt))}
          testId="prompt"
        />
      </form>
      <PromptPreview content={content} saved={prompt && saved} knownSlugs={known}>
        {prompt && <ReferencedBy promptId={prompt.id} />}
      </PromptPreview>
    </div>
  );
}
