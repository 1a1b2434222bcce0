import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
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
  // On narrow screens the menu and the account controls fold behind a button (CSS shows them always on wider
  // ones, where this state has no effect): a strip of links that scrolls sideways hid half the pages.
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const menuId = useId();

  // Whatever changes the page (a menu link, a link in the page, the back button) folds the menu away.
  useEffect(() => {
    const close = () => setOpen(false);
    window.addEventListener('hashchange', close);
    return () => window.removeEventListener('hashchange', close);
  }, []);

  // Escape folds the open menu; if the focus was in it, it goes back to the Menu button (the disclosure pattern).
  useEffect(() => {
    if (!open) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      const focusInMenu = menu.current?.contains(document.activeElement);
      setOpen(false);
      if (focusInMenu || document.activeElement === toggle.current) toggle.current?.focus();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [open]);

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
          <button
            type="button"
            ref={toggle}
            className="menu-toggle button"
            aria-expanded={open}
            aria-controls={menuId}
            onClick={() => setOpen(!open)}
            data-testid="menu-toggle"
          >
            <span className="menu-icon" aria-hidden="true" />
            Menu
          </button>
          <div id={menuId} ref={menu} className="header-menu" data-open={open}>
            <nav className="nav" aria-label="Main">
              <ul>
                {items.map((item) => (
                  <li key={item.section}>
                    <a
                      href={item.target}
                      aria-current={section === item.section ? 'page' : undefined}
                      // The current page's link changes no route, yet choosing it should still fold the menu.
                      onClick={() => setOpen(false)}
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
              <button
                type="button"
                className="button button-small"
                onClick={logout}
                disabled={busy}
                data-testid="logout"
              >
                Log out
              </button>
            </div>
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
