import { type FormEvent, useState } from 'react';
import { useSubmission } from '../actions';
import { api } from '../api';
import { NewPasswordField, TextField } from '../components/Field';
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
  const sending = useSubmission();
  const done = useNotice();
  const mismatch = repeat !== '' && next !== repeat;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (next !== repeat) return;
    done.clear();
    void sending.run(async () => {
      const { message } = await api.changePassword(current, next);
      done.show(`${message || 'Password changed.'} Your other sessions have been logged out.`);
      setCurrent('');
      setNext('');
      setRepeat('');
    });
  };

  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="password-heading">
      <h2 id="password-heading">Change password</h2>
      <ErrorAlert error={sending.error} />
      <Notice notice={done} />
      <TextField
        label="Current password"
        type="password"
        autoComplete="current-password"
        required
        value={current}
        onChange={setCurrent}
        testId="password-current"
      />
      <NewPasswordField
        label="New password"
        hint="8 to 128 characters. Common passwords are refused."
        value={next}
        onChange={setNext}
        testId="password-new"
      />
      <TextField
        label="Repeat the new password"
        hint={mismatch ? 'The two new passwords differ.' : undefined}
        type="password"
        autoComplete="new-password"
        required
        aria-invalid={mismatch}
        value={repeat}
        onChange={setRepeat}
        testId="password-repeat"
      />
      <div className="actions">
        <button
          type="submit"
          className="button button-primary"
          disabled={sending.busy || mismatch}
          data-testid="password-save"
        >
          {sending.busy ? 'Changing…' : 'Change password'}
        </button>
      </div>
    </form>
  );
}
