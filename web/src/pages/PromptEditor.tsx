import { api } from '../api';
import { PromptForm } from '../components/PromptForm';
import { BACK_TO_PROMPTS, PromptHeader } from '../components/PromptHeader';
import { Loading, Notice, PageLoadError } from '../components/Status';
import { useFlash } from '../flash';
import { useResource, useTitle } from '../hooks';
import { href } from '../router';

export function PromptEditor({ slug }: { slug?: string }) {
  const existing = useResource(`prompt:${slug ?? ''}`, (signal) =>
    slug ? api.prompt(slug, signal) : Promise.resolve(undefined),
  );
  const notice = useFlash();
  useTitle(slug ? 'Edit prompt' : 'New prompt');

  if (slug && existing.error !== undefined) {
    return (
      <PageLoadError heading="Edit prompt" error={existing.error} onRetry={existing.reload} back={BACK_TO_PROMPTS} />
    );
  }
  const prompt = existing.data;
  if (slug && !prompt) return <Loading label="Loading the prompt…" />;
  return (
    <section className="page">
      {prompt ? (
        <PromptHeader prompt={prompt} current="edit" heading={`Edit “${prompt.title}”`} />
      ) : (
        <>
          <p className="breadcrumb">
            <a href={href(['prompts'])}>Prompts</a>
          </p>
          <h1>New prompt</h1>
        </>
      )}
      <Notice notice={notice} />
      <PromptForm
        // A new version (saved here, or reloaded after a conflict) starts a fresh form.
        key={prompt ? `${prompt.id}@${prompt.version}` : 'new'}
        prompt={prompt}
        onSaved={(message) => {
          notice.show(message);
          existing.reload();
        }}
        onReload={() => {
          notice.clear();
          existing.reload();
        }}
      />
    </section>
  );
}
