import { Markdown } from './Markdown';

const MARKDOWN_TYPES = new Set(['text/markdown', 'text/x-markdown']);

export const isMarkdown = (contentType: string): boolean =>
  MARKDOWN_TYPES.has(contentType.split(';')[0]?.trim().toLowerCase() ?? '');

/** Markdown is rendered (safely: no HTML is ever injected); every other type is shown as plain text. */
export function ArtifactContent({ content, contentType }: { content: string; contentType: string }) {
  if (content === '') return <p className="hint">This artifact is empty.</p>;
  return (
    <div className="artifact-content" data-testid="artifact-view">
      {isMarkdown(contentType) ? <Markdown source={content} /> : <pre className="plain">{content}</pre>}
    </div>
  );
}
