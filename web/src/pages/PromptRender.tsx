import { api } from '../api';
import { BACK_TO_PROMPTS, PromptHeader } from '../components/PromptHeader';
import { RenderForm } from '../components/RenderForm';
import { Loading, PageLoadError } from '../components/Status';
import { useResource, useTitle } from '../hooks';
import { bare } from '../prompt-slugs';
import { renderVariables } from '../render-variables';

/** Fill in a saved prompt's variables and see what the server renders (as MCP clients and the API get it). */
export function PromptRender({ slug }: { slug: string }) {
  const prompt = useResource(`prompt:${slug}`, (signal) => api.prompt(slug, signal));
  const variables = useResource(`render-variables:${slug}:${prompt.data?.version ?? ''}`, (signal) =>
    prompt.data ? renderVariables(prompt.data, signal) : Promise.resolve(undefined),
  );
  useTitle('Render prompt');
  const error = prompt.error ?? variables.error;
  if (error !== undefined) {
    const retry = prompt.error !== undefined ? prompt.reload : variables.reload;
    return <PageLoadError heading="Render prompt" error={error} onRetry={retry} back={BACK_TO_PROMPTS} />;
  }
  if (!prompt.data || !variables.data) return <Loading label="Loading the prompt…" />;
  const current = prompt.data;
  return (
    <section className="page">
      <PromptHeader prompt={current} current="render" heading={`Render “${current.title}”`} />
      <p className="hint">
        Renders the saved version {current.version}, exactly as tools get it. Unsaved edits are not included.
      </p>
      {current.broken_references.length > 0 && (
        <div className="alert alert-error" data-testid="prompt-broken-warning">
          <p>This prompt includes prompts that do not exist, so rendering with references resolved fails: </p>
          <ul className="tags">
            {current.broken_references.map((reference) => (
              <li key={reference} className="tag tag-broken" data-testid="prompt-reference" data-broken="true">
                @{bare(reference)} <span className="tag-note">(no such prompt)</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      <RenderForm key={`${current.id}@${current.version}`} prompt={current} variables={variables.data} />
    </section>
  );
}
