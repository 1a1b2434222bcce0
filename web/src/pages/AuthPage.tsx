import { type FormEvent, useState } from 'react';
import { type DashboardConfig, PASSWORD_MAX, PASSWORD_MIN, type User } from '../../../src/contract';
import { api } from '../api';
import { Field } from '../components/Field';
import { ErrorAlert } from '../components/Status';
import { useTitle } from '../hooks';

interface AuthPageProps {
  config: DashboardConfig;
  onSignedIn: (user: User) => void;
}

/** Log in and, when the server allows it, sign up, side by side (stacked on narrow screens). */
export function AuthPage({ config, onSignedIn }: AuthPageProps) {
  // The first account can always be created (it becomes the admin); after that the sign-up mode decides.
  const firstUser = !config.has_users;
  const canSignUp = firstUser || config.signup_mode !== 'closed';
  useTitle(firstUser ? 'Set up' : 'Log in');

  return (
    <main id="main" className="auth" tabIndex={-1}>
      <h1 className="brand brand-large">
        <span className="brand-mark" aria-hidden="true" /> Cairn
      </h1>
      <div className={firstUser || !canSignUp ? 'auth-panels auth-panels-single' : 'auth-panels'}>
        {!firstUser && (
          <section className="card auth-card">
            <LoginForm onSignedIn={onSignedIn} />
            {!canSignUp && (
              <p className="hint">Sign-up is closed on this server. Ask its administrator for an account.</p>
            )}
          </section>
        )}
        {canSignUp && (
          <section className="card auth-card">
            <SignupForm config={config} firstUser={firstUser} onSignedIn={onSignedIn} />
          </section>
        )}
      </div>
    </main>
  );
}

function LoginForm({ onSignedIn }: { onSignedIn: (user: User) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const { user } = await api.login(email.trim(), password);
      onSignedIn(user);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} className="stack" aria-labelledby="login-heading">
      <h2 id="login-heading">Log in</h2>
      <ErrorAlert error={error} advise={false} />
      <Field label="E-mail">
        {(id) => (
          <input
            id={id}
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            data-testid="login-email"
          />
        )}
      </Field>
      <Field label="Password">
        {(id) => (
          <input
            id={id}
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            data-testid="login-password"
          />
        )}
      </Field>
      <button type="submit" className="button button-primary" disabled={busy} data-testid="login-submit">
        {busy ? 'Logging in…' : 'Log in'}
      </button>
    </form>
  );
}

interface SignupFormProps {
  config: DashboardConfig;
  firstUser: boolean;
  onSignedIn: (user: User) => void;
}

function SignupForm({ config, firstUser, onSignedIn }: SignupFormProps) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [inviteCode, setInviteCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const needsInvite = !firstUser && config.signup_mode === 'invite';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const { user } = await api.signup(email.trim(), password, needsInvite ? inviteCode.trim() : undefined);
      onSignedIn(user);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} className="stack" aria-labelledby="signup-heading">
      <h2 id="signup-heading">{firstUser ? 'Set up Cairn' : 'Create an account'}</h2>
      {firstUser && (
        <p className="lead">No account exists yet. The first account becomes the administrator of this server.</p>
      )}
      <ErrorAlert error={error} advise={false} />
      <Field label="E-mail">
        {(id) => (
          <input
            id={id}
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            data-testid="signup-email"
          />
        )}
      </Field>
      <Field
        label="Password"
        hint={`${PASSWORD_MIN} to ${PASSWORD_MAX} characters. Common passwords are refused; a long phrase works well.`}
      >
        {(id, hint) => (
          <input
            id={id}
            type="password"
            autoComplete="new-password"
            required
            minLength={8}
            maxLength={PASSWORD_MAX}
            aria-describedby={hint}
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            data-testid="signup-password"
          />
        )}
      </Field>
      {needsInvite && (
        <Field label="Invite code" hint="Sign-up on this server needs an invite code from its administrator.">
          {(id, hint) => (
            <input
              id={id}
              type="text"
              autoComplete="off"
              required
              aria-describedby={hint}
              value={inviteCode}
              onChange={(event) => setInviteCode(event.target.value)}
              data-testid="signup-invite"
            />
          )}
        </Field>
      )}
      <button type="submit" className="button button-primary" disabled={busy} data-testid="signup-submit">
        {busy ? 'Creating the account…' : 'Create account'}
      </button>
    </form>
  );
}
