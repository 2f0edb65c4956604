// API tokens for scripts and the keypanel CLI (owners and resellers): create one (shown once),
// see when each was last used, revoke one (it stops working at once).
import { useId, useState, type FormEvent } from 'react';
import type { ApiToken, Role } from '@schemas/entities';
import { createApiTokenSchema } from '@schemas/api-tokens';
import { Badge } from '../../components/ui/badge';
import { Card, EmptyState } from '../../components/ui/card';
import { CopyButton } from '../../components/ui/copy-button';
import { Field } from '../../components/ui/field';
import { ConfirmModal } from '../../components/ui/confirm-modal';
import { Spinner } from '../../components/ui/spinner';
import { toast } from '../../components/ui/toast';
import { ApiError, errorMessage } from '../../lib/api';
import { formatDateTime, formatRelativeTime } from '../../lib/format';
import { useCurrentUser } from '../../lib/session';
import { useApiTokens, useCreateApiToken, useRevokeApiToken } from './api-tokens';
import { initialStepUp, StepUpFields, stepUpProof, stepUpReady, type StepUpAccount } from './StepUp';

const ROLE_LABELS: Record<Role, string> = { user: 'User', reseller: 'Reseller', owner: 'Owner' };
const ROLES_UP_TO: Record<Role, Role[]> = { user: [], reseller: ['user', 'reseller'], owner: ['user', 'reseller', 'owner'] };

/** Renders nothing for a plain user: tokens are for owners and resellers. */
export function ApiTokensSection({ account }: { account: StepUpAccount }) {
  const user = useCurrentUser();
  if (!user || ROLES_UP_TO[user.role].length === 0) return null;
  return (
    <div className="security-wide">
      <ApiTokensCard role={user.role} account={account} />
    </div>
  );
}

function ApiTokensCard({ role, account }: { role: Role; account: StepUpAccount }) {
  const tokens = useApiTokens();
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiToken | null>(null);

  return (
    <Card title="API tokens">
      <p className="muted">
        Tokens let scripts and the <code>keypanel</code> command-line tool act for you: set one as <code>KEYPANEL_TOKEN</code>. A token acts
        with its role (at most yours); a read-only token can only read. Tokens cannot change your password, two-factor or sessions.
      </p>
      {created ? (
        <NewToken created={created} onDone={() => setCreated(null)} />
      ) : (
        <CreateTokenForm role={role} account={account} onCreated={setCreated} />
      )}
      <h3 className="api-tokens-heading">Your tokens</h3>
      {tokens.isPending ? (
        <Spinner label="Loading API tokens…" />
      ) : tokens.isError ? (
        <div className="notice notice-error" role="alert">
          Could not load your API tokens.{' '}
          <button type="button" className="link-button" onClick={() => tokens.refetch()}>
            Try again
          </button>
        </div>
      ) : tokens.data.length === 0 ? (
        <EmptyState title="No API tokens yet">
          <p className="muted">Create one above for a script or the CLI.</p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table api-tokens-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Access</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.map((t) => (
                <tr key={t._id}>
                  <td data-label="Name" className="api-token-name">
                    {t.name}
                  </td>
                  <td data-label="Role">{ROLE_LABELS[t.role]}</td>
                  <td data-label="Access">
                    {t.readOnly ? <Badge tone="blue">Read-only</Badge> : <Badge tone="orange">Read and write</Badge>}
                  </td>
                  <td data-label="Created">{formatDateTime(t.createdAt)}</td>
                  <td data-label="Last used" title={t.lastUsedAt ? formatDateTime(t.lastUsedAt) : undefined}>
                    {t.lastUsedAt ? formatRelativeTime(t.lastUsedAt) : 'Never'}
                  </td>
                  <td className="api-tokens-actions">
                    <button
                      type="button"
                      className="btn btn-secondary btn-sm"
                      onClick={() => setRevoking(t)}
                      aria-label={`Revoke token ${t.name}`}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {revoking && <RevokeModal token={revoking} onClose={() => setRevoking(null)} />}
    </Card>
  );
}

function CreateTokenForm({
  role,
  account,
  onCreated,
}: {
  role: Role;
  account: StepUpAccount;
  onCreated: (created: { name: string; token: string }) => void;
}) {
  const roleId = useId();
  const [name, setName] = useState('');
  const [tokenRole, setTokenRole] = useState<Role>(role);
  const [readOnly, setReadOnly] = useState(false);
  const [stepUp, setStepUp] = useState(() => initialStepUp(account));
  const [error, setError] = useState<string | null>(null);
  const [refused, setRefused] = useState<string | null>(null);
  const create = useCreateApiToken();

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = createApiTokenSchema.safeParse({ name, role: tokenRole, readOnly });
    if (!parsed.success) return setError(parsed.error.issues[0].message);
    setError(null);
    if (!stepUpReady(stepUp))
      return setRefused(stepUp.method === 'code' ? 'Enter the 6-digit code from your authenticator app.' : 'Enter your current password.');
    setRefused(null);
    try {
      // A token outlives this session, so the server asks for proof beyond it.
      const answer = await create.mutateAsync({ ...parsed.data, ...stepUpProof(stepUp) });
      onCreated({ name: answer.apiToken.name, token: answer.token });
      setName('');
      setReadOnly(false);
      setStepUp(initialStepUp(account));
      toast.success('API token created. Copy it now: it is shown only once.');
    } catch (err) {
      if (err instanceof ApiError && err.code === 'REAUTH_REQUIRED') setRefused(err.message);
      else toast.error(errorMessage(err, 'Failed to create API token'));
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Create an API token" className="api-token-form">
      <div className="form-grid">
        <Field
          label="Token name"
          name="tokenName"
          placeholder="e.g. nightly export"
          autoComplete="off"
          maxLength={60}
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={error}
        />
        <div className="field">
          <label htmlFor={roleId}>Role</label>
          <select id={roleId} value={tokenRole} onChange={(e) => setTokenRole(e.target.value as Role)}>
            {ROLES_UP_TO[role].map((r) => (
              <option key={r} value={r}>
                {ROLE_LABELS[r]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} /> Read-only (the token can only read,
        never change anything)
      </label>
      <StepUpFields account={account} value={stepUp} onChange={setStepUp} />
      {refused && (
        <div className="notice notice-error" role="alert">
          {refused}
        </div>
      )}
      <div className="button-row api-token-submit">
        <button type="submit" className="btn btn-primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create token'}
        </button>
      </div>
    </form>
  );
}

function NewToken({ created, onDone }: { created: { name: string; token: string }; onDone: () => void }) {
  return (
    <div className="api-token-created">
      <div className="notice notice-warning" role="status">
        Copy the token “{created.name}” now. It is shown only once; if you lose it, revoke it and create another.
      </div>
      <p className="secret-key mono" aria-label="Your new API token">
        {created.token}
      </p>
      <div className="button-row">
        <CopyButton text={created.token} label="Copy token" copiedMessage="API token copied" />
        <button type="button" className="btn btn-primary btn-sm" onClick={onDone}>
          I have saved it
        </button>
      </div>
    </div>
  );
}

function RevokeModal({ token, onClose }: { token: ApiToken; onClose: () => void }) {
  const revoke = useRevokeApiToken();
  async function onRevoke() {
    try {
      const answer = await revoke.mutateAsync(token._id);
      toast.success(answer.message);
      onClose();
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to revoke API token'));
    }
  }
  return (
    <ConfirmModal
      title="Revoke this API token?"
      confirmLabel="Revoke token"
      busyLabel="Revoking…"
      busy={revoke.isPending}
      onConfirm={onRevoke}
      onClose={onClose}
    >
      <p>Scripts using “{token.name}” stop working at once. This cannot be undone.</p>
    </ConfirmModal>
  );
}
