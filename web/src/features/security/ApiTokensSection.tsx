// API tokens for scripts and the keypanel CLI (owners and resellers): create one (shown once),
// see when each was last used, revoke one (it stops working at once).
import { useId, useState, type FormEvent } from 'react';
import { createApiTokenSchema } from '../../../../worker/modules/accounts/schemas/api-tokens';
import type { Schemas } from '../../../../worker/platform/api-client';
import { isAtLeast, ROLES, type Role } from '../../../../worker/platform/vocabulary';
import { Badge } from '../../components/ui/badge';
import { ROLE_LABELS, RoleOptions } from '../../components/users/roles';
import { Card, EmptyState } from '../../components/ui/card';
import { DataTable, type Column } from '../../components/ui/data-table';
import { Field } from '../../components/ui/field';
import { ConfirmModal } from '../../components/ui/confirm-modal';
import { QueryState } from '../../components/ui/query-state';
import { ShownOnceSecret } from '../../components/ui/shown-once-secret';
import { toast } from '../../components/ui/toast';
import { ApiError, errorMessage } from '../../lib/api';
import { asyncHandler } from '../../lib/async-handler';
import { formatDateTime, formatRelativeTime } from '../../lib/format';
import { useCurrentUser } from '../../lib/session';
import { useApiTokens, useCreateApiToken, useRevokeApiToken } from './api-tokens';
import { initialStepUp, StepUpFields, stepUpProof, stepUpReady, type StepUpAccount } from '../../components/StepUp';

type ApiToken = Schemas['ApiToken'];

/** The roles a token may act with: a reseller's or an owner's own, and those below it. */
const rolesUpTo = (role: Role): Role[] => (role === 'user' ? [] : ROLES.filter((r) => isAtLeast(role, r)));

/** Renders nothing for a plain user: tokens are for owners and resellers. */
export function ApiTokensSection({ account }: { account: StepUpAccount }) {
  const user = useCurrentUser();
  if (!user || rolesUpTo(user.role).length === 0) return null;
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
      <QueryState
        query={tokens}
        loading="Loading API tokens…"
        failed="Could not load your API tokens."
        isEmpty={(list) => list.length === 0}
        empty={
          <EmptyState title="No API tokens yet">
            <p className="muted">Create one above for a script or the CLI.</p>
          </EmptyState>
        }
      >
        {(list) => (
          <DataTable
            label="Your API tokens"
            className="api-tokens-table"
            rows={list}
            rowKey={(t) => t._id}
            columns={columns(setRevoking)}
          />
        )}
      </QueryState>
      {revoking && <RevokeModal token={revoking} onClose={() => setRevoking(null)} />}
    </Card>
  );
}

function columns(revoke: (token: ApiToken) => void): Column<ApiToken>[] {
  return [
    { header: 'Name', label: 'Name', className: 'api-token-name', cell: (t) => t.name },
    { header: 'Role', label: 'Role', cell: (t) => ROLE_LABELS[t.role] },
    {
      header: 'Access',
      label: 'Access',
      cell: (t) => (t.readOnly ? <Badge tone="blue">Read-only</Badge> : <Badge tone="orange">Read and write</Badge>),
    },
    { header: 'Created', label: 'Created', cell: (t) => formatDateTime(t.createdAt) },
    {
      header: 'Last used',
      label: 'Last used',
      cell: (t) => (t.lastUsedAt ? <span title={formatDateTime(t.lastUsedAt)}>{formatRelativeTime(t.lastUsedAt)}</span> : 'Never'),
    },
    {
      header: <span className="visually-hidden">Actions</span>,
      className: 'api-tokens-actions',
      cell: (t) => (
        <button type="button" className="btn btn-secondary btn-sm" onClick={() => revoke(t)} aria-label={`Revoke token ${t.name}`}>
          Revoke
        </button>
      ),
    },
  ];
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
    <form onSubmit={asyncHandler(onSubmit)} noValidate aria-label="Create an API token" className="api-token-form">
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
            <RoleOptions roles={rolesUpTo(role)} />
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
    <ShownOnceSecret
      value={created.token}
      label="Your new API token"
      copyLabel="Copy token"
      copiedMessage="API token copied"
      onDone={onDone}
    >
      Copy the token “{created.name}” now. It is shown only once; if you lose it, revoke it and create another.
    </ShownOnceSecret>
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
      onConfirm={asyncHandler(onRevoke)}
      onClose={onClose}
    >
      <p>Scripts using “{token.name}” stop working at once. This cannot be undone.</p>
    </ConfirmModal>
  );
}
