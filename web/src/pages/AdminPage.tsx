import { type FormEvent, useState } from 'react';
import { TIERS, type User } from '../../../src/contract';
import { api } from '../api';
import { CopyButton } from '../components/CopyButton';
import { ErrorAlert, Loading, Notice } from '../components/Status';
import { TableScroll } from '../components/TableScroll';
import { formatDate } from '../format';
import { useResource, useTitle } from '../hooks';
import { useNotice } from '../notice';
import { useSession } from '../session';

export function AdminPage() {
  useTitle('Admin');
  const users = useResource('admin-users', (signal) => api.adminUsers(signal));
  return (
    <section className="page">
      <h1>Admin</h1>
      <Invites />
      <section className="card" aria-labelledby="users-heading">
        <h2 id="users-heading">Users</h2>
        <p className="hint">
          The hourly request limit comes from the tier unless you set a number for the user. Leave it empty to use the
          tier’s default.
        </p>
        {users.error !== undefined && <ErrorAlert error={users.error} onRetry={users.reload} />}
        {users.loading && !users.data && <Loading label="Loading users…" />}
        {users.data && (
          <TableScroll label="Users">
            <table className="table" data-testid="admin-users">
              <thead>
                <tr>
                  <th scope="col">User</th>
                  <th scope="col">Tier</th>
                  <th scope="col">Hourly limit</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {users.data.users.map((user) => (
                  <UserRow key={user.id} user={user} />
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </section>
    </section>
  );
}

function Invites() {
  const { config } = useSession();
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const create = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setCode((await api.createInvite()).code);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card stack" aria-labelledby="invites-heading">
      <h2 id="invites-heading">Invite codes</h2>
      <p className="hint">
        Sign-up on this server is <strong>{config.signup_mode}</strong>.{' '}
        {config.signup_mode === 'invite'
          ? 'New users need a code. Each code works once.'
          : 'Codes are only needed when sign-up is set to invite.'}
      </p>
      <ErrorAlert error={error} />
      <div className="actions">
        <button type="button" className="button" onClick={create} disabled={busy} data-testid="invite-create">
          {busy ? 'Creating…' : 'Create invite code'}
        </button>
      </div>
      {code && (
        <div className="secret">
          <code data-testid="invite-code">{code}</code>
          <CopyButton text={code} label="Copy code" />
        </div>
      )}
    </section>
  );
}

function UserRow({ user: initial }: { user: User }) {
  const session = useSession();
  const [user, setUser] = useState(initial);
  const [tier, setTier] = useState(initial.tier);
  const [limit, setLimit] = useState(initial.rate_limit === null ? '' : String(initial.rate_limit));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const saved = useNotice();
  const limitValue = limit.trim() === '' ? null : Number(limit);
  const invalid = limitValue !== null && (!Number.isInteger(limitValue) || limitValue < 0);
  const changed = tier !== user.tier || limitValue !== user.rate_limit;

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (invalid) return;
    setBusy(true);
    setError(undefined);
    saved.clear();
    try {
      const { user: updated } = await api.updateUser(user.id, { tier, rate_limit: limitValue });
      setUser(updated);
      setTier(updated.tier);
      setLimit(updated.rate_limit === null ? '' : String(updated.rate_limit));
      saved.show('Saved.');
      if (updated.id === session.user.id) session.setUser(updated);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const formId = `user-${user.id}`;
  return (
    <tr data-testid="admin-user-row" data-user-id={user.id}>
      <th scope="row">
        <span className="cell-main">{user.email}</span>
        <span className="cell-sub">
          {user.is_admin ? 'Administrator · ' : ''}since {formatDate(user.created_at)}
        </span>
        {error !== undefined && <ErrorAlert error={error} />}
        <Notice notice={saved} />
      </th>
      <td>
        <label className="visually-hidden" htmlFor={`${formId}-tier`}>
          Tier of {user.email}
        </label>
        <select
          id={`${formId}-tier`}
          form={formId}
          value={tier}
          onChange={(event) => setTier(event.target.value)}
          data-testid="admin-tier"
        >
          {TIERS.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </td>
      <td>
        <label className="visually-hidden" htmlFor={`${formId}-limit`}>
          Hourly request limit of {user.email}
        </label>
        <input
          id={`${formId}-limit`}
          form={formId}
          type="number"
          min={0}
          step={1}
          inputMode="numeric"
          placeholder="tier default"
          aria-invalid={invalid}
          value={limit}
          onChange={(event) => setLimit(event.target.value)}
          data-testid="admin-rate-limit"
        />
      </td>
      <td>
        <form id={formId} onSubmit={save}>
          <button
            type="submit"
            className="button button-small"
            disabled={busy || invalid || !changed}
            data-testid="admin-save"
          >
            {busy ? 'Saving…' : 'Save'}
          </button>
        </form>
      </td>
    </tr>
  );
}
