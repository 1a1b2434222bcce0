import { api } from '../api';
import { plural } from '../format';
import { useResource } from '../hooks';
import { href } from '../router';
import { Loaded } from './Status';

/** The prompts whose content includes `@<this slug>`, as links to them. */
export function ReferencedBy({ promptId }: { promptId: string }) {
  const list = useResource(`referenced-by:${promptId}`, (signal) => api.referencedBy(promptId, signal));
  return (
    <>
      <h3>Referenced by</h3>
      <Loaded resource={list} loading="Looking for prompts that use this one…">
        {(data) =>
          data.prompts.length === 0 ? (
            <p className="hint" data-testid="prompt-referenced-by-none">
              No other prompt includes this one.
            </p>
          ) : (
            <>
              <ul className="tags" data-testid="prompt-referenced-by">
                {data.prompts.map((prompt) => (
                  <li key={prompt.id} className="tag tag-reference">
                    <a
                      href={href(['prompts', prompt.slug, 'edit'])}
                      title={prompt.title}
                      data-testid="prompt-referenced-by-link"
                    >
                      @{prompt.slug}
                    </a>
                  </li>
                ))}
              </ul>
              {data.total > data.prompts.length && (
                <p className="hint">
                  And {plural(data.total - data.prompts.length, 'more prompt')}. Changing this prompt changes all of
                  them.
                </p>
              )}
            </>
          )
        }
      </Loaded>
    </>
  );
}
