import { type FormEvent, useState } from 'react';
import { TIERS, type User } from '../../../src/contract';
import { useSubmission } from '../actions';
import { api } from '../api';
import { CopyButton } from '../components/CopyButton';
import { ErrorAlert, Loaded, Notice } from '../components/Status';
import { Table } from '../components/TableScroll';
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
        <Loaded resource={users} loading="Loading users…">
          {(data) => (
            <Table label="Users" columns={['User', 'Tier', 'Hourly limit', 'Actions']} testId="admin-users">
              {data.users.map((user) => (
                <UserRow key={user.id} user={user} />
              ))}
            </Table>
          )}
        </Loaded>
      </section>
    </section>
  );
}

function Invites() {
  const { config } = useSession();
  const [code, setCode] = useState('');
  const sending = useSubmission();

  const create = () => sending.run(async () => setCode((await api.createInvite()).code));

  return (
    <section className="card stack" aria-labelledby="invites-heading">
      <h2 id="invites-heading">Invite codes</h2>
      <p className="hint">
        Sign-up on this server is <strong>{config.signup_mode}</strong>.{' '}
        {config.signup_mode === 'invite'
          ? 'New users need a code. Each code works once.'
          : 'Codes are only needed when sign-up is set to invite.'}
      </p>
      <ErrorAlert error={sending.error} />
      <div className="actions">
        <button type="button" className="button" onClick={create} disabled={sending.busy} data-testid="invite-create">
          {sending.busy ? 'Creating…' : 'Create invite code'}
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
  const sending = useSubmission();
  const saved = useNotice();
  const limitValue = limit.trim() === '' ? null : Number(limit);
  const invalid = limitValue !== null && (!Number.isInteger(limitValue) || limitValue < 0);
  const changed = tier !== user.tier || limitValue !== user.rate_limit;

  const save = (event: FormEvent) => {
    event.preventDefault();
    if (invalid) return;
    saved.clear();
    void sending.run(async () => {
      const { user: updated } = await api.updateUser(user.id, { tier, rate_limit: limitValue });
      setUser(updated);
      setTier(updated.tier);
      setLimit(updated.rate_limit === null ? '' : String(updated.rate_limit));
      saved.show('Saved.');
      if (updated.id === session.user.id) session.setUser(updated);
    });
  };

  const formId = `user-${user.id}`;
  return (
    <tr data-testid="admin-user-row" data-user-id={user.id}>
      <th scope="row">
        <span className="cell-main">{user.email}</span>
        <span className="cell-sub">
          {user.is_admin ? 'Administrator · ' : ''}since {formatDate(user.created_at)}
        </span>
        {sending.error !== undefined && <ErrorAlert error={sending.error} />}
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
            disabled={sending.busy || invalid || !changed}
            data-testid="admin-save"
          >
            {sending.busy ? 'Saving…' : 'Save'}
          </button>
        </form>
      </td>
    </tr>
  );
}
