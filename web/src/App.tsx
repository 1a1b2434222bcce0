import { type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { DashboardConfig, User } from '../../src/contract';
import { ApiError, api, onUnauthorized } from './api';
import { ConfirmProvider } from './components/Confirm';
import { Layout } from './components/Layout';
import { ErrorAlert, Loading } from './components/Status';
import { ActivityPage } from './pages/ActivityPage';
import { AdminPage } from './pages/AdminPage';
import { ArtifactEditor } from './pages/ArtifactEditor';
import { ArtifactPage } from './pages/ArtifactPage';
import { ArtifactsPage } from './pages/ArtifactsPage';
import { AuthPage } from './pages/AuthPage';
import { KeysPage } from './pages/KeysPage';
import { MemoriesPage } from './pages/MemoriesPage';
import { MemoryEditor } from './pages/MemoryEditor';
import { MemoryHistory } from './pages/MemoryHistory';
import { NotFoundPage } from './pages/NotFoundPage';
import { PasswordPage } from './pages/PasswordPage';
import { PromptEditor } from './pages/PromptEditor';
import { PromptHistory } from './pages/PromptHistory';
import { PromptRender } from './pages/PromptRender';
import { PromptsPage } from './pages/PromptsPage';
import { UsagePage } from './pages/UsagePage';
import { WebhooksPage } from './pages/WebhooksPage';
import { href, navigate, type Route, useRoute } from './router';
import { type Session, SessionContext } from './session';

type Boot =
  | { state: 'loading' }
  | { state: 'failed'; error: unknown }
  | { state: 'ready'; config: DashboardConfig; user: User | null };

async function boot(): Promise<Boot> {
  const config = await api.config();
  try {
    const { user } = await api.me();
    return { state: 'ready', config, user };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return { state: 'ready', config, user: null };
    throw error;
  }
}

const HOME = href(['prompts']);

export function App() {
  const [status, setStatus] = useState<Boot>({ state: 'loading' });
  const route = useRoute();

  const start = useCallback(() => {
    setStatus({ state: 'loading' });
    boot().then(setStatus, (error: unknown) => setStatus({ state: 'failed', error }));
  }, []);
  useEffect(start, [start]);

  const setUser = useCallback((user: User | null) => {
    setStatus((previous) =>
      previous.state === 'ready' ? { ...previous, user, config: { ...previous.config, has_users: true } } : previous,
    );
  }, []);

  // Any 401 means the session is gone: show the log-in page (the current route is kept for afterwards).
  useEffect(() => {
    onUnauthorized(() => setUser(null));
    return () => onUnauthorized(undefined);
  }, [setUser]);

  const signedIn = status.state === 'ready' && status.user !== null;
  const head = route.segments[0];
  useEffect(() => {
    if (signedIn && (head === undefined || head === 'login' || head === 'signup')) navigate(HOME, { replace: true });
  }, [signedIn, head]);

  if (status.state === 'loading') {
    return (
      <main id="main" className="auth" tabIndex={-1}>
        <Loading label="Loading Cairn…" />
      </main>
    );
  }
  if (status.state === 'failed') {
    return (
      <main id="main" className="auth" tabIndex={-1}>
        <h1>Cairn could not start</h1>
        <ErrorAlert error={status.error} onRetry={start} />
      </main>
    );
  }
  if (!status.user) {
    return <AuthPage config={status.config} onSignedIn={setUser} />;
  }
  return <SignedIn user={status.user} config={status.config} setUser={setUser} route={route} />;
}

function SignedIn({ route, ...session }: Session & { route: Route }) {
  const value = useMemo<Session>(
    () => ({ user: session.user, config: session.config, setUser: session.setUser }),
    [session.user, session.config, session.setUser],
  );
  const path = route.segments.join('/');
  const first = useRef(true);

  // After navigating, move the focus to the page so screen readers and keyboards start at its top.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the path changes
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    document.getElementById('main')?.focus({ preventScroll: false });
    window.scrollTo(0, 0);
  }, [path]);

  const { section, page } = resolve(route, session.user);
  return (
    <SessionContext.Provider value={value}>
      <ConfirmProvider>
        <Layout section={section}>{page}</Layout>
      </ConfirmProvider>
    </SessionContext.Provider>
  );
}

/** A `?from=3` style version number, or undefined. */
function versionParam(value: string | null): number | undefined {
  return value && /^[1-9]\d{0,8}$/.test(value) ? Number(value) : undefined;
}

/** The nav section to highlight and the page to show for a route. */
function resolve(route: Route, user: User): { section: string; page: ReactNode } {
  const [head, ...rest] = route.segments;
  switch (head) {
    case undefined:
    case 'login':
    case 'signup':
      return { section: 'prompts', page: <PromptsPage key="prompts" /> };
    case 'prompts':
      if (rest.length === 0) return { section: 'prompts', page: <PromptsPage key="prompts" /> };
      if (rest[0] === 'new' && rest.length === 1) return { section: 'prompts', page: <PromptEditor key="new" /> };
      if (rest.length === 2 && rest[1] === 'edit') {
        return { section: 'prompts', page: <PromptEditor key={rest[0]} slug={rest[0]} /> };
      }
      if (rest.length === 2 && rest[1] === 'history') {
        const from = versionParam(route.query.get('from'));
        const to = versionParam(route.query.get('to'));
        return { section: 'prompts', page: <PromptHistory key={rest[0]} slug={rest[0] ?? ''} from={from} to={to} /> };
      }
      if (rest.length === 2 && rest[1] === 'render') {
        return { section: 'prompts', page: <PromptRender key={rest[0]} slug={rest[0] ?? ''} /> };
      }
      break;
    case 'memories':
      if (rest.length === 0) return { section: 'memories', page: <MemoriesPage key="memories" /> };
      if (rest[0] === 'new' && rest.length === 1) return { section: 'memories', page: <MemoryEditor key="new" /> };
      if (rest.length === 1) return { section: 'memories', page: <MemoryEditor key={rest[0]} memoryId={rest[0]} /> };
      if (rest.length === 2 && rest[1] === 'history') {
        return { section: 'memories', page: <MemoryHistory key={rest[0]} memoryId={rest[0] ?? ''} /> };
      }
      break;
    case 'artifacts': {
      if (rest.length === 0) {
        const project = route.query.get('project');
        return { section: 'artifacts', page: <ArtifactsPage key={`artifacts:${project ?? ''}`} project={project} /> };
      }
      if (rest[0] === 'new' && rest.length === 1) {
        return {
          section: 'artifacts',
          page: <ArtifactEditor key="new" initialProject={route.query.get('project') ?? ''} />,
        };
      }
      const [project, slug, action, version] = rest;
      if (project === undefined || slug === undefined) break;
      const id = `${project}/${slug}`;
      if (action === undefined)
        return { section: 'artifacts', page: <ArtifactPage key={id} project={project} slug={slug} /> };
      if (action === 'edit' && version === undefined) {
        return { section: 'artifacts', page: <ArtifactEditor key={`${id}/edit`} project={project} slug={slug} /> };
      }
      if (action === 'versions' && version !== undefined && /^\d+$/.test(version) && rest.length === 4) {
        return {
          section: 'artifacts',
          page: <ArtifactPage key={`${id}@${version}`} project={project} slug={slug} version={Number(version)} />,
        };
      }
      break;
    }
    case 'usage':
      if (rest.length === 0) return { section: 'usage', page: <UsagePage /> };
      break;
    case 'activity':
      if (rest.length === 0) return { section: 'activity', page: <ActivityPage /> };
      break;
    case 'settings':
      if (rest.length === 0 || (rest[0] === 'keys' && rest.length === 1))
        return { section: 'settings/keys', page: <KeysPage /> };
      if (rest[0] === 'account' && rest.length === 1) return { section: 'settings/account', page: <PasswordPage /> };
      if (rest[0] === 'webhooks' && rest.length === 1) return { section: 'settings/webhooks', page: <WebhooksPage /> };
      break;
    case 'admin':
      if (user.is_admin && rest.length === 0) return { section: 'admin', page: <AdminPage /> };
      break;
  }
  return { section: '', page: <NotFoundPage /> };
}
