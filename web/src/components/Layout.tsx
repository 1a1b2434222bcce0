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
  { section: 'activity', label: 'Activity', target: href(['activity']), testId: 'nav-activity' },
  { section: 'settings/keys', label: 'API keys', target: href(['settings', 'keys']), testId: 'nav-keys' },
  { section: 'settings/webhooks', label: 'Webhooks', target: href(['settings', 'webhooks']), testId: 'nav-webhooks' },
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
        <DisabledWebhooksBanner section={section} />
        {children}
      </main>
    </>
  );
}

/**
 * The dashboard-wide notice of webhooks disabled after repeated failures (the webhooks page shows each one,
 * with its reason and a Re-enable button). Asked once when the dashboard opens, and again on leaving the
 * webhooks page or while a notice is shown, so it goes away once they are re-enabled.
 */
function DisabledWebhooksBanner({ section }: { section: string }) {
  const [disabled, setDisabled] = useState(0);
  const onWebhooksPage = section === 'settings/webhooks';
  const previous = useRef<string>(undefined);
  const shown = useRef(0);
  useEffect(() => {
    const before = previous.current;
    previous.current = section;
    if (section === 'settings/webhooks') return;
    // Asked on opening, on leaving the webhooks page, and while a notice is shown; otherwise not at all.
    if (before !== undefined && before !== 'settings/webhooks' && shown.current === 0) return;
    const controller = new AbortController();
    api.webhooks(controller.signal).then(
      (answer) => {
        shown.current = answer.webhooks.filter((hook) => !hook.enabled && hook.disabled_reason).length;
        setDisabled(shown.current);
      },
      () => undefined, // no notice is better than a broken page
    );
    return () => controller.abort();
  }, [section]);
  if (onWebhooksPage || disabled === 0) return null;
  return (
    <div className="alert alert-error" role="alert" data-testid="webhooks-banner">
      <p>
        {disabled === 1 ? 'A webhook was' : `${disabled} webhooks were`} disabled after repeated failed deliveries.{' '}
        <a href={href(['settings', 'webhooks'])}>Review webhooks</a>
      </p>
    </div>
  );
}

/** A link to #main would change the hash route, so the skip control is a button that moves the focus. */
function skipToMain() {
  document.getElementById('main')?.focus();
}
