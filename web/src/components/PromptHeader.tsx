import type { Prompt } from '../../../src/contract';
import { formatDate } from '../format';
import { href } from '../router';

/** Where a prompt page that could not load leads back to. */
export const BACK_TO_PROMPTS = { href: href(['prompts']), label: 'Back to your prompts' };

export type PromptTab = 'edit' | 'history' | 'render';

const TABS: { tab: PromptTab; label: string }[] = [
  { tab: 'edit', label: 'Edit' },
  { tab: 'history', label: 'History' },
  { tab: 'render', label: 'Render' },
];

/** Breadcrumb, heading, version line and the tabs of a saved prompt's pages. */
export function PromptHeader({ prompt, current, heading }: { prompt: Prompt; current: PromptTab; heading: string }) {
  return (
    <header className="stack-small">
      <p className="breadcrumb">
        <a href={href(['prompts'])}>Prompts</a>
      </p>
      <h1>{heading}</h1>
      <p className="row-meta">
        <code>@{prompt.slug}</code> · <span data-testid="prompt-version">version {prompt.version}</span> · created{' '}
        {formatDate(prompt.created_at)} · updated {formatDate(prompt.updated_at)}
      </p>
      <nav className="tabs" aria-label="Prompt">
        {TABS.map(({ tab, label }) => (
          <a
            key={tab}
            href={href(['prompts', prompt.slug, tab])}
            aria-current={tab === current ? 'page' : undefined}
            data-testid={`prompt-tab-${tab}`}
          >
            {label}
          </a>
        ))}
      </nav>
    </header>
  );
}
