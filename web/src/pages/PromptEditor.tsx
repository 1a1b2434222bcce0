import { type FormEvent, useState } from 'react';
import { api } from '../api';
import { useConfirm } from '../components/Confirm';
import { Field } from '../components/Field';
import { PromptPreview } from '../components/PromptPreview';
import { ErrorAlert, Loading } from '../components/Status';
import { setFlash } from '../flash';
import { formatDate, splitList } from '../format';
import { useResource, useTitle } from '../hooks';
import { href, navigate } from '../router';
import type { Prompt, PromptInput, PromptStatus } from '../types';

const MAX_PAGES = 50;

/** Every slug of the user's prompts (for marking broken references), read 100 at a time. */
async function allSlugs(signal: AbortSignal): Promise<Set<string>> {
  const slugs = new Set<string>();
  for (let page = 1; page <= MAX_PAGES; page++) {
    const answer = await api.prompts({ page, per_page: 100 }, signal);
    for (const prompt of answer.prompts) slugs.add(prompt.slug);
    if (answer.prompts.length === 0 || page * answer.per_page >= answer.total) break;
  }
  return slugs;
}

export function PromptEditor({ slug }: { slug?: string }) {
  const existing = useResource(`prompt:${slug ?? ''}`, (signal) =>
    slug ? api.prompt(slug, signal) : Promise.resolve(undefined),
  );
  useTitle(slug ? 'Edit prompt' : 'New prompt');

  if (slug && existing.error !== undefined) {
    return (
      <section className="page">
        <h1>Edit prompt</h1>
        <ErrorAlert error={existing.error} onRetry={existing.reload} />
        <p>
          <a href={href(['prompts'])}>Back to your prompts</a>
        </p>
      </section>
    );
  }
  if (slug && !existing.data) return <Loading label="Loading the prompt…" />;
  return <PromptForm prompt={existing.data} />;
}

function PromptForm({ prompt }: { prompt: Prompt | undefined }) {
  const confirm = useConfirm();
  const slugs = useResource('prompt-slugs', allSlugs);
  const [title, setTitle] = useState(prompt?.title ?? '');
  const [slug, setSlug] = useState('');
  const [description, setDescription] = useState(prompt?.description ?? '');
  const [content, setContent] = useState(prompt?.content ?? '');
  const [status, setStatus] = useState<PromptStatus>(prompt?.status ?? 'draft');
  const [inMcp, setInMcp] = useState(prompt?.available_in_mcp ?? false);
  const [labels, setLabels] = useState(prompt?.labels.join(', ') ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  // The prompt being written counts as existing for its own references.
  const known = slugs.data && prompt ? new Set([...slugs.data, prompt.slug]) : slugs.data;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const input: PromptInput = {
      title: title.trim(),
      description: description.trim(),
      content,
      status,
      available_in_mcp: inMcp,
      labels: splitList(labels),
    };
    setBusy(true);
    setError(undefined);
    try {
      if (prompt) {
        await api.updatePrompt(prompt.id, input);
        setFlash(`“${input.title}” was saved.`);
      } else {
        const created = await api.createPrompt({ ...input, ...(slug.trim() && { slug: slug.trim() }) });
        setFlash(`“${created.title}” was created as @${created.slug}.`);
      }
      navigate(href(['prompts']));
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  const remove = async () => {
    if (!prompt) return;
    const ok = await confirm({
      title: `Delete “${prompt.title}”?`,
      message: `The prompt @${prompt.slug} is deleted for good. Prompts that reference it will have a broken reference.`,
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

  return (
    <section className="page">
      <p className="breadcrumb">
        <a href={href(['prompts'])}>Prompts</a>
      </p>
      <h1>{prompt ? `Edit “${prompt.title}”` : 'New prompt'}</h1>
      {prompt && (
        <p className="row-meta">
          <code>@{prompt.slug}</code> · created {formatDate(prompt.created_at)} · updated{' '}
          {formatDate(prompt.updated_at)}
        </p>
      )}
      <div className="editor">
        <form className="card stack" onSubmit={submit} aria-label="Prompt">
          <ErrorAlert error={error} />
          <Field label="Title">
            {(id) => (
              <input
                id={id}
                type="text"
                required
                maxLength={200}
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
                  maxLength={100}
                  pattern="[a-z0-9]+(-[a-z0-9]+)*"
                  aria-describedby={hint}
                  value={slug}
                  onChange={(event) => setSlug(event.target.value)}
                  data-testid="prompt-slug"
                />
              )}
            </Field>
          )}
          <Field label="Description" hint="Optional, up to 200 characters.">
            {(id, hint) => (
              <input
                id={id}
                type="text"
                maxLength={200}
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
                maxLength={100_000}
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
          <div className="actions">
            <button type="submit" className="button button-primary" disabled={busy} data-testid="prompt-save">
              {busy ? 'Saving…' : prompt ? 'Save changes' : 'Create prompt'}
            </button>
            <a className="button" href={href(['prompts'])}>
              Cancel
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
        <PromptPreview content={content} knownSlugs={known} />
      </div>
    </section>
  );
}
