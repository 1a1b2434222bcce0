import { href } from '../router';

/** The two Settings pages: API keys and account. */
export function SettingsTabs({ current }: { current: 'keys' | 'account' }) {
  return (
    <nav className="tabs" aria-label="Settings">
      <a href={href(['settings', 'keys'])} aria-current={current === 'keys' ? 'page' : undefined}>
        API keys
      </a>
      <a href={href(['settings', 'account'])} aria-current={current === 'account' ? 'page' : undefined}>
        Account
      </a>
    </nav>
  );
}
