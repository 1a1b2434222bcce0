import { href } from '../router';

/** The Settings pages: API keys, webhooks and account. */
export function SettingsTabs({ current }: { current: 'keys' | 'webhooks' | 'account' }) {
  return (
    <nav className="tabs" aria-label="Settings">
      <a href={href(['settings', 'keys'])} aria-current={current === 'keys' ? 'page' : undefined}>
        API keys
      </a>
      <a href={href(['settings', 'webhooks'])} aria-current={current === 'webhooks' ? 'page' : undefined}>
        Webhooks
      </a>
      <a href={href(['settings', 'account'])} aria-current={current === 'account' ? 'page' : undefined}>
        Account
      </a>
    </nav>
  );
}
