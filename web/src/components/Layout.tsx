import { type ReactNode, useEffect, useRef, useState } from 'react';
import { api } from '../api';
import { href, navigate } from '../router';
import { useSession } from '../session';
import { ErrorAlert } from './Status';

interface NavItem {
  section: string;
  label: string;
  target: string;
  testId: string;
}

const NAV: NavItem[] = [
  { section: 'prompts', label: 'Prompts', target: href(['prompts']), testId: 'nav-prompts' },
  { section: 'memories', label: 'Memories', target: href(['memories']), testId: 'nav-memories' },
  { section: 'artifacts', label: 'Artifacts', target: href(['artifacts']), testId: 'nav-artifacts' },
  { section: 'usage', label: 'Usage', target: href(['usage']), testId: 'nav-usage' },
  { section: 'settings/keys', label: 'API keys', target: href(['settings', 'keys']), testId: 'nav-keys' },
  { section: 'settings/account', label: 'Account', target: href(['settings', 'account']), testId: 'nav-account' },
];

const ADMIN: NavItem = { section: 'admin', label: 'Admin', target: href(['admin']), testId: 'nav-admin' };

export function Layout({ section, children }: { section: string; children: ReactNode }) {
  const { user, setUser } = useSession();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const items = user.is_admin ? [...NAV, ADMIN] : NAV;
  const nav = useRef<HTMLElement>(null);

  // On narrow screens the menu scrolls sideways: keep the current page's entry in view.
  useEffect(() => {
    if (!section) return;
    nav.current?.querySelector('[aria-current="page"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [section]);

  const logout = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await api.logout();
      setUser(null);
      navigate(href(['login']));
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  return (
    <>
      <button type="button" className="skip-link" onClick={skipToMain}>
        Skip to content
      </button>
      <header className="header">
        <div className="header-inner">
          <a className="brand" href={href(['prompts'])}>
            <span className="brand-mark" aria-hidden="true" /> Cairn
          </a>
          <nav className="nav" aria-label="Main" ref={nav}>
            <ul>
              {items.map((item) => (
                <li key={item.section}>
                  <a
                    href={item.target}
                    aria-current={section === item.section ? 'page' : undefined}
                    data-testid={item.testId}
                  >
                    {item.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <div className="account">
            <span className="account-email" title={user.email}>
              {user.email}
            </span>
            <button type="button" className="button button-small" onClick={logout} disabled={busy} data-testid="logout">
              Log out
            </button>
          </div>
        </div>
      </header>
      <main id="main" className="main" tabIndex={-1}>
        <ErrorAlert error={error} />
        {children}
      </main>
    </>
  );
}

/** A link to #main would change the hash route, so the skip control is a button that moves the focus. */
function skipToMain() {
  document.getElementById('main')?.focus();
}
