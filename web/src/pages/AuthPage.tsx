import { type FormEvent, useState } from 'react';
import type { DashboardConfig, User } from '../../../src/contract';
import { useSubmission } from '../actions';
import { api } from '../api';
import { NewPasswordField, TextField } from '../components/Field';
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
  const sending = useSubmission();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void sending.leave(async () => onSignedIn((await api.login(email.trim(), password)).user));
  };

  return (
    <form onSubmit={submit} className="stack" aria-labelledby="login-heading">
      <h2 id="login-heading">Log in</h2>
      <ErrorAlert error={sending.error} advise={false} />
      <EmailField value={email} onChange={setEmail} testId="login-email" />
      <TextField
        label="Password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onChange={setPassword}
        testId="login-password"
      />
      <button type="submit" className="button button-primary" disabled={sending.busy} data-testid="login-submit">
        {sending.busy ? 'Logging in…' : 'Log in'}
      </button>
    </form>
  );
}

function EmailField(props: { value: string; onChange: (value: string) => void; testId: string }) {
  return <TextField label="E-mail" type="email" autoComplete="username" required {...props} />;
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
  const sending = useSubmission();
  const needsInvite = !firstUser && config.signup_mode === 'invite';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const invite = needsInvite ? inviteCode.trim() : undefined;
    void sending.leave(async () => onSignedIn((await api.signup(email.trim(), password, invite)).user));
  };

  return (
    <form onSubmit={submit} className="stack" aria-labelledby="signup-heading">
      <h2 id="signup-heading">{firstUser ? 'Set up Cairn' : 'Create an account'}</h2>
      {firstUser && (
        <p className="lead">No account exists yet. The first account becomes the administrator of this server.</p>
      )}
      <ErrorAlert error={sending.error} advise={false} />
      <EmailField value={email} onChange={setEmail} testId="signup-email" />
      <NewPasswordField
        label="Password"
        hint="8 to 128 characters. Common passwords are refused; a long phrase works well."
        value={password}
        onChange={setPassword}
        testId="signup-password"
      />
      {needsInvite && (
        <TextField
          label="Invite code"
          hint="Sign-up on this server needs an invite code from its administrator."
          autoComplete="off"
          required
          value={inviteCode}
          onChange={setInviteCode}
          testId="signup-invite"
        />
      )}
      <button type="submit" className="button button-primary" disabled={sending.busy} data-testid="signup-submit">
        {sending.busy ? 'Creating the account…' : 'Create account'}
      </button>
    </form>
  );
}
