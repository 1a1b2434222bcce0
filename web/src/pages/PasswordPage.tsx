import { type FormEvent, useState } from 'react';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../../src/contract';
import { api } from '../api';
import { Field } from '../components/Field';
import { SettingsTabs } from '../components/SettingsTabs';
import { ErrorAlert, Notice } from '../components/Status';
import { formatDate, formatNumber } from '../format';
import { useTitle } from '../hooks';
import { useNotice } from '../notice';
import { useSession } from '../session';

export function PasswordPage() {
  useTitle('Account');
  const { user } = useSession();
  return (
    <section className="page">
      <h1>Settings</h1>
      <SettingsTabs current="account" />
      <div className="card">
        <h2>Your account</h2>
        <dl className="facts">
          <dt>E-mail</dt>
          <dd>{user.email}</dd>
          <dt>Plan</dt>
          <dd>{user.tier}</dd>
          <dt>Hourly request limit</dt>
          <dd>{user.rate_limit === null ? 'Your plan’s default' : formatNumber(user.rate_limit)}</dd>
          <dt>Member since</dt>
          <dd>{formatDate(user.created_at)}</dd>
          {user.is_admin && (
            <>
              <dt>Role</dt>
              <dd>Administrator</dd>
            </>
          )}
        </dl>
      </div>
      <PasswordForm />
    </section>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const done = useNotice();
  const mismatch = repeat !== '' && next !== repeat;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (next !== repeat) return;
    setBusy(true);
    setError(undefined);
    done.clear();
    try {
      const { message } = await api.changePassword(current, next);
      done.show(`${message || 'Password changed.'} Your other sessions have been logged out.`);
      setCurrent('');
      setNext('');
      setRepeat('');
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="password-heading">
      <h2 id="password-heading">Change password</h2>
      <ErrorAlert error={error} />
      <Notice notice={done} />
      <Field label="Current password">
        {(id) => (
          <input
            id={id}
            type="password"
            autoComplete="current-password"
            required
            value={current}
            onChange={(event) => setCurrent(event.target.value)}
            data-testid="password-current"
          />
        )}
      </Field>
      <Field label="New password" hint={`${PASSWORD_MIN} to ${PASSWORD_MAX} characters. Common passwords are refused.`}>
        {(id, hint) => (
          <input
            id={id}
            type="password"
            autoComplete="new-password"
            required
            minLength={8}
            maxLength={PASSWORD_MAX}
            aria-describedby={hint}
            value={next}
            onChange={(event) => setNext(event.target.value)}
            data-testid="password-new"
          />
        )}
      </Field>
      <Field label="Repeat the new password" hint={mismatch ? 'The two new passwords differ.' : undefined}>
        {(id, hint) => (
          <input
            id={id}
            type="password"
            autoComplete="new-password"
            required
            aria-invalid={mismatch}
            aria-describedby={hint}
            value={repeat}
            onChange={(event) => setRepeat(event.target.value)}
            data-testid="password-repeat"
          />
        )}
      </Field>
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={busy || mismatch} data-testid="password-save">
          {busy ? 'Changing…' : 'Change password'}
        </button>
      </div>
    </form>
  );
}
