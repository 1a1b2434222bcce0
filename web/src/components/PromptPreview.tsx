import { type ReactNode, useMemo } from 'react';
import { plural } from '../format';
import { href } from '../router';
import { extractReferences, extractVariables, segmentContent } from '../template';

interface PromptPreviewProps {
  content: string;
  /** The server's verdict on the saved content's references (slugs without `@`); it decides for those. */
  saved?: { references: readonly string[]; broken: readonly string[] } | undefined;
  /** Slugs of the user's prompts, for references not in the saved content; undefined while unknown. */
  knownSlugs: ReadonlySet<string> | undefined;
  /** More about the prompt, shown after its references (e.g. what references it). */
  children?: ReactNode;
}

/** References of `content` that are neither among the saved ones (already judged by the server). */
export const unjudgedReferences = (content: string, savedReferences: readonly string[]): string[] =>
  extractReferences(content).filter((slug) => !savedReferences.includes(slug));

/** Live analysis of a prompt: its {{variables}}, its @references (broken ones marked) and the highlighted text. */
export function PromptPreview({ content, saved, knownSlugs, children }: PromptPreviewProps) {
  const variables = useMemo(() => extractVariables(content), [content]);
  const references = useMemo(() => extractReferences(content), [content]);
  const segments = useMemo(() => segmentContent(content), [content]);
  const broken = (slug: string) =>
    saved?.references.includes(slug) ? saved.broken.includes(slug) : knownSlugs !== undefined && !knownSlugs.has(slug);
  const brokenCount = references.filter(broken).length;

  return (
    <aside className="card preview" aria-labelledby="preview-heading" data-testid="prompt-preview">
      <h2 id="preview-heading">Preview</h2>
      <h3>Variables</h3>
      {variables.length === 0 ? (
        <p className="hint">
          None. Write <code>{'{{ name }}'}</code> where a value should be filled in.
        </p>
      ) : (
        <ul className="tags" data-testid="prompt-variables">
          {variables.map((name) => (
            <li key={name} className="tag tag-variable" data-testid="prompt-variable">
              {name}
            </li>
          ))}
        </ul>
      )}
      <h3>References</h3>
      {references.length === 0 ? (
        <p className="hint">
          None. Write <code>@slug</code> to include another of your prompts.
        </p>
      ) : (
        <>
          <ul className="tags" data-testid="prompt-references">
            {references.map((slug) => (
              <li
                key={slug}
                className={broken(slug) ? 'tag tag-broken' : 'tag tag-reference'}
                data-testid="prompt-reference"
                data-broken={broken(slug)}
              >
                {broken(slug) ? (
                  <>
                    @{slug} <span className="tag-note">(no such prompt)</span>
                  </>
                ) : (
                  <a href={href(['prompts', slug, 'edit'])}>@{slug}</a>
                )}
              </li>
            ))}
          </ul>
          {brokenCount > 0 && (
            <p className="field-error" data-testid="prompt-broken-warning">
              {plural(brokenCount, 'reference')} {brokenCount === 1 ? 'points' : 'point'} to a prompt you do not have.
              Create it, or fix the slug: rendering this prompt over MCP fails until then.
            </p>
          )}
        </>
      )}
      {children}
      <h3>Content</h3>
      {content.trim() === '' ? (
        <p className="hint">The content appears here as you type.</p>
      ) : (
        <pre className="prompt-text">
          {segments.map((segment) => {
            const key = segment.start;
            if (segment.kind === 'variable') {
              return (
                <mark key={key} className="hl-variable">
                  {segment.text}
                </mark>
              );
            }
            if (segment.kind === 'reference') {
              return (
                <mark key={key} className={broken(segment.slug) ? 'hl-broken' : 'hl-reference'}>
                  {segment.text}
                </mark>
              );
            }
            return <span key={key}>{segment.text}</span>;
          })}
        </pre>
      )}
    </aside>
  );
}
