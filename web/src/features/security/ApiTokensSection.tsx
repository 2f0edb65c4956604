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
import { initialStepUp, StepUpFields, stepUpMissing, stepUpProof, stepUpReady, type StepUpAccount } from '../../components/StepUp';
import { FormattedMessage } from 'react-intl';
import { useT, type Translate } from '../../lib/i18n';
import { validationMessage } from '../../lib/form/messages';
import { answerText } from '../../lib/server-words';

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
  const t = useT();
  const tokens = useApiTokens();
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiToken | null>(null);

  return (
    <Card title={t('apiTokens.title')}>
      <p className="muted">
        <FormattedMessage id="apiTokens.intro" values={{ code: (chunks) => <code>{chunks}</code> }} />
      </p>
      {created ? (
        <NewToken created={created} onDone={() => setCreated(null)} />
      ) : (
        <CreateTokenForm role={role} account={account} onCreated={setCreated} />
      )}
      <h3 className="api-tokens-heading">{t('apiTokens.yours')}</h3>
      <QueryState
        query={tokens}
        loading={t('apiTokens.loading')}
        failed={t('apiTokens.loadFailed')}
        isEmpty={(list) => list.length === 0}
        empty={
          <EmptyState title={t('apiTokens.empty')}>
            <p className="muted">{t('apiTokens.emptyBody')}</p>
          </EmptyState>
        }
      >
        {(list) => (
          <DataTable
            label={t('apiTokens.yourApiTokens')}
            className="api-tokens-table"
            rows={list}
            rowKey={(token) => token._id}
            columns={columns(t, setRevoking)}
          />
        )}
      </QueryState>
      {revoking && <RevokeModal token={revoking} onClose={() => setRevoking(null)} />}
    </Card>
  );
}

function columns(t: Translate, revoke: (token: ApiToken) => void): Column<ApiToken>[] {
  return [
    { header: t('apiTokens.name'), label: t('apiTokens.name'), className: 'api-token-name', cell: (token) => token.name },
    { header: t('apiTokens.role'), label: t('apiTokens.role'), cell: (token) => ROLE_LABELS[token.role] },
    {
      header: t('apiTokens.access'),
      label: t('apiTokens.access'),
      cell: (token) =>
        token.readOnly ? <Badge tone="blue">{t('apiTokens.readOnly')}</Badge> : <Badge tone="orange">{t('apiTokens.readWrite')}</Badge>,
    },
    { header: t('apiTokens.created'), label: t('apiTokens.created'), cell: (token) => formatDateTime(token.createdAt) },
    {
      header: t('apiTokens.lastUsed'),
      label: t('apiTokens.lastUsed'),
      cell: (token) =>
        token.lastUsedAt ? <span title={formatDateTime(token.lastUsedAt)}>{formatRelativeTime(token.lastUsedAt)}</span> : t('common.never'),
    },
    {
      header: <span className="visually-hidden">{t('apiTokens.actions')}</span>,
      className: 'api-tokens-actions',
      cell: (token) => (
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          onClick={() => revoke(token)}
          aria-label={t('apiTokens.revokeLabel', { name: token.name })}
        >
          {t('apiTokens.revoke')}
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
  const t = useT();
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
    if (!parsed.success) return setError(validationMessage(parsed.error.issues[0].message));
    setError(null);
    if (!stepUpReady(stepUp)) return setRefused(stepUpMissing(stepUp));
    setRefused(null);
    try {
      // A token outlives this session, so the server asks for proof beyond it.
      const answer = await create.mutateAsync({ ...parsed.data, ...stepUpProof(stepUp) });
      onCreated({ name: answer.apiToken.name, token: answer.token });
      setName('');
      setReadOnly(false);
      setStepUp(initialStepUp(account));
      toast.success(t('apiTokens.createdToast'));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'REAUTH_REQUIRED') setRefused(errorMessage(err, err.message));
      else toast.error(errorMessage(err, t('apiTokens.createFailed')));
    }
  }

  return (
    <form onSubmit={asyncHandler(onSubmit)} noValidate aria-label={t('apiTokens.createLabel')} className="api-token-form">
      <div className="form-grid">
        <Field
          label={t('apiTokens.tokenName')}
          name="tokenName"
          placeholder={t('apiTokens.tokenNamePlaceholder')}
          autoComplete="off"
          maxLength={60}
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={error}
        />
        <div className="field">
          <label htmlFor={roleId}>{t('apiTokens.role')}</label>
          <select id={roleId} value={tokenRole} onChange={(e) => setTokenRole(e.target.value as Role)}>
            <RoleOptions roles={rolesUpTo(role)} />
          </select>
        </div>
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} /> {t('apiTokens.readOnlyBox')}
      </label>
      <StepUpFields account={account} value={stepUp} onChange={setStepUp} />
      {refused && (
        <div className="notice notice-error" role="alert">
          {refused}
        </div>
      )}
      <div className="button-row api-token-submit">
        <button type="submit" className="btn btn-primary" disabled={create.isPending}>
          {create.isPending ? t('apiTokens.creating') : t('apiTokens.create')}
        </button>
      </div>
    </form>
  );
}

function NewToken({ created, onDone }: { created: { name: string; token: string }; onDone: () => void }) {
  const t = useT();
  return (
    <ShownOnceSecret
      value={created.token}
      label={t('apiTokens.newLabel')}
      copyLabel={t('apiTokens.copy')}
      copiedMessage={t('apiTokens.copied')}
      onDone={onDone}
    >
      {t('apiTokens.copyNow', { name: created.name })}
    </ShownOnceSecret>
  );
}

function RevokeModal({ token, onClose }: { token: ApiToken; onClose: () => void }) {
  const t = useT();
  const revoke = useRevokeApiToken();
  async function onRevoke() {
    try {
      const answer = await revoke.mutateAsync(token._id);
      toast.success(answerText(answer.message, t('apiTokens.revoked')));
      onClose();
    } catch (err) {
      toast.error(errorMessage(err, t('apiTokens.revokeFailed')));
    }
  }
  return (
    <ConfirmModal
      title={t('apiTokens.revokeTitle')}
      confirmLabel={t('apiTokens.revokeConfirm')}
      busyLabel={t('apiTokens.revoking')}
      busy={revoke.isPending}
      onConfirm={asyncHandler(onRevoke)}
      onClose={onClose}
    >
      <p>{t('apiTokens.revokeBody', { name: token.name })}</p>
    </ConfirmModal>
  );
}
