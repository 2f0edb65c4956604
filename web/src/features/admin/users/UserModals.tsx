// User Management's dialogs. Each form is checked with the API's own schema before it is sent,
// so the messages are the server's.
import {
  addFundsSchema,
  createUserSchema,
  updateUserSchema,
  type FundType,
} from '../../../../../worker/modules/accounts/schemas/admin-users';
import { PASSWORD_HINT } from '../../../../../worker/modules/accounts/schemas/password-policy';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { PasswordStrength } from '../../../components/PasswordStrength';
import { RoleOptions } from '../../../components/users/roles';
import { useStepUpPrompt } from '../../../components/StepUp';
import { CheckboxField, Field, SelectField } from '../../../components/ui/field';
import { ConfirmModal } from '../../../components/ui/confirm-modal';
import { FormModal } from '../../../components/ui/form-modal';
import { toast } from '../../../components/ui/toast';
import { errorMessage } from '../../../lib/api';
import { useForm } from '../../../lib/form';
import { adminSchemaErrors } from '../schema-messages';
import { formatCredits, formatUsd } from '../../../lib/format';
import { useAddFunds, useCreateUser, useDeleteUser, useUpdateUser } from './api';
import { asyncHandler } from '../../../lib/async-handler';
import { FormattedMessage } from 'react-intl';
import { useT } from '../../../lib/i18n';
import { answerText } from '../../../lib/server-words';

type User = Schemas['User'];
type Role = Schemas['Role'];

/** Balance is parsed as a decimal and credits as an integer, each 0 when empty. */
const parseBalance = (text: string) => (text.trim() === '' ? 0 : Number.parseFloat(text));
const parseCredits = (text: string) => (text.trim() === '' ? 0 : Number.parseInt(text, 10));

const RANK: Record<Role, number> = { user: 0, reseller: 1, owner: 2 };

/** The server asks for proof when the change grants power: a higher role, or another address (which takes over the account). */
export function grantsPower(before: { role: Role; email: string } | null, after: { role: Role; email: string }): boolean {
  if (after.role !== 'user' && (before === null || RANK[after.role] > RANK[before.role])) return true;
  return before !== null && after.email.trim().toLowerCase() !== before.email.toLowerCase();
}

type NewUser = { username: string; email: string; password: string; role: Role; balance: string; credits: string };
const EMPTY_NEW_USER: NewUser = { username: '', email: '', password: '', role: 'user', balance: '', credits: '' };
const newUserInput = (v: NewUser) => ({ ...v, balance: parseBalance(v.balance), credits: parseCredits(v.credits) });

export function CreateUserModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const create = useCreateUser();
  const stepUp = useStepUpPrompt();
  const t = useT();
  const form = useForm<NewUser>({
    initial: EMPTY_NEW_USER,
    validate: (v) => adminSchemaErrors(createUserSchema, newUserInput(v)),
    submit: async (v) => {
      // Making a reseller or an owner grants power: the server asks for proof beyond the session.
      const proof = grantsPower(null, v) ? stepUp.proof() : {};
      if (!proof) return;
      const answer = await create.mutateAsync({ ...createUserSchema.parse(newUserInput(v)), ...proof });
      toast.success(answerText(answer.message, t('admin.users.created')));
      close();
    },
    onError: (err) => {
      if (!stepUp.refusedBy(err)) toast.error(errorMessage(err, t('admin.users.createFailed')));
      return null;
    },
  });
  const needsProof = grantsPower(null, form.values);

  function close() {
    form.reset();
    stepUp.reset();
    onClose();
  }

  return (
    <FormModal
      open={open}
      title={t('admin.users.create')}
      onClose={close}
      busy={create.isPending}
      formId="create-user-form"
      submitLabel={t('admin.users.create')}
      busyLabel={t('admin.users.creating')}
    >
      <form id="create-user-form" onSubmit={form.onSubmit} noValidate>
        <Field label={t('admin.users.username')} autoComplete="off" {...form.field('username')} required />
        <Field label={t('admin.users.email')} type="email" autoComplete="off" {...form.field('email')} required />
        <Field
          label={t('admin.users.password')}
          type="password"
          autoComplete="new-password"
          {...form.field('password')}
          hint={PASSWORD_HINT}
          required
        />
        <PasswordStrength password={form.values.password} username={form.values.username.trim()} email={form.values.email.trim()} />
        <SelectField label={t('admin.users.role')} id="create-role" {...form.field('role')}>
          <RoleOptions />
        </SelectField>
        <div className="form-grid">
          <Field
            label={t('admin.users.balanceUsd')}
            type="number"
            min={0}
            step={0.01}
            inputMode="decimal"
            placeholder="0.00"
            {...form.field('balance')}
          />
          <Field
            label={t('admin.users.credits')}
            type="number"
            min={0}
            step={1}
            inputMode="numeric"
            placeholder="0"
            {...form.field('credits')}
          />
        </div>
        {needsProof &&
          stepUp.section(form.values.role === 'owner' ? t('admin.users.proofCreateOwner') : t('admin.users.proofCreateReseller'))}
      </form>
    </FormModal>
  );
}

type UserEdit = { username: string; email: string; role: Role; balance: string; credits: string; isActive: boolean };

/**
 * Only what the owner changed is sent, so a balance that moved since the form opened (a purchase, a
 * top-up) is not overwritten by the value shown when it was loaded.
 */
function changesOf(user: User, v: UserEdit) {
  const balance = parseBalance(v.balance);
  const credits = parseCredits(v.credits);
  return {
    username: v.username.trim() !== user.username ? v.username : undefined,
    email: v.email.trim().toLowerCase() !== user.email ? v.email : undefined,
    role: v.role !== user.role ? v.role : undefined,
    balance: balance !== user.balance ? balance : undefined,
    credits: credits !== user.credits ? credits : undefined,
    isActive: v.isActive !== user.isActive ? v.isActive : undefined,
  };
}

export function EditUserModal({ user, onClose }: { user: User; onClose: () => void }) {
  const update = useUpdateUser();
  const stepUp = useStepUpPrompt();
  const t = useT();
  const form = useForm<UserEdit>({
    initial: {
      username: user.username,
      email: user.email,
      role: user.role,
      balance: user.balance.toFixed(2),
      credits: String(user.credits),
      isActive: user.isActive,
    },
    validate: (v) => adminSchemaErrors(updateUserSchema, changesOf(user, v)),
    submit: async (v) => {
      const changes = changesOf(user, v);
      if (Object.values(changes).every((c) => c === undefined)) {
        toast.info(t('admin.users.nothingToUpdate'), 2000);
        return onClose();
      }
      // A higher role or another address grants power: the server asks for proof beyond the session.
      const proof = grantsPower(user, v) ? stepUp.proof() : {};
      if (!proof) return;
      const answer = await update.mutateAsync({ id: user._id, changes: { ...updateUserSchema.parse(changes), ...proof } });
      toast.success(answerText(answer.message, t('admin.users.updated')));
      onClose();
    },
    onError: (err) => {
      if (!stepUp.refusedBy(err)) toast.error(errorMessage(err, t('admin.users.updateFailed')));
      return null;
    },
  });
  const { role, isActive } = form.values;
  const raisesRole = grantsPower(user, { role, email: user.email });
  const changesEmail = form.values.email.trim().toLowerCase() !== user.email.toLowerCase();
  const needsProof = raisesRole || changesEmail;

  return (
    <FormModal
      open
      title={t('admin.users.editNamed', { username: user.username })}
      onClose={onClose}
      busy={update.isPending}
      formId="edit-user-form"
      submitLabel={t('admin.users.saveChanges')}
      busyLabel={t('admin.users.saving')}
    >
      <form id="edit-user-form" onSubmit={form.onSubmit} noValidate>
        <Field label={t('admin.users.username')} autoComplete="off" {...form.field('username')} />
        <Field label={t('admin.users.email')} type="email" autoComplete="off" {...form.field('email')} />
        <SelectField label={t('admin.users.role')} id="edit-role" {...form.field('role')}>
          <RoleOptions />
        </SelectField>
        <div className="form-grid">
          <Field label={t('admin.users.balanceUsd')} type="number" min={0} step={0.01} inputMode="decimal" {...form.field('balance')} />
          <Field label={t('admin.users.credits')} type="number" min={0} step={1} inputMode="numeric" {...form.field('credits')} />
        </div>
        <p className="field-hint">{t('admin.users.setHint')}</p>
        <CheckboxField label={t('admin.users.accountActive')} {...form.checkbox('isActive')} />
        {role !== user.role && <p className="field-hint">{t('admin.users.roleChangeHint')}</p>}
        {!isActive && user.isActive && (
          <p className="field-hint" role="note">
            {t('admin.users.deactivateHint')}
          </p>
        )}
        {needsProof &&
          stepUp.section(
            raisesRole && changesEmail
              ? t('admin.users.proofRoleAndEmail', { role })
              : raisesRole
                ? t('admin.users.proofRole', { role })
                : t('admin.users.proofEmail'),
          )}
      </form>
    </FormModal>
  );
}

type Funds = { type: FundType; amount: string };
const fundsInput = (v: Funds) => ({ type: v.type, amount: v.amount.trim() === '' ? undefined : Number(v.amount) });

export function AddFundsModal({ user, onClose }: { user: User; onClose: () => void }) {
  const addFunds = useAddFunds();
  const t = useT();
  const form = useForm<Funds>({
    initial: { type: 'balance', amount: '' },
    validate: (v) => adminSchemaErrors(addFundsSchema, fundsInput(v)),
    submit: async (v) => {
      const body = addFundsSchema.parse(fundsInput(v));
      const answer = await addFunds.mutateAsync({ id: user._id, body });
      const added =
        body.type === 'credits'
          ? t('admin.users.creditsAdded', { count: body.amount })
          : t('admin.users.balanceAdded', { amount: formatUsd(body.amount) });
      toast.success(answerText(answer.message, added));
      onClose();
    },
    onError: (err) => {
      toast.error(errorMessage(err, t('admin.users.addFundsFailed')));
      return null;
    },
  });
  const credits = form.values.type === 'credits';

  return (
    <FormModal
      open
      size="sm"
      title={t('admin.users.addFundsTitle')}
      onClose={onClose}
      busy={addFunds.isPending}
      formId="add-funds-form"
      submitLabel={credits ? t('admin.users.addCredits') : t('admin.users.addBalance')}
      busyLabel={t('admin.users.adding')}
    >
      <form id="add-funds-form" onSubmit={form.onSubmit} noValidate>
        <p className="muted">
          {t('admin.users.holds', { username: user.username, balance: formatUsd(user.balance), credits: formatCredits(user.credits) })}
        </p>
        <SelectField label={t('admin.users.addTo')} id="funds-type" {...form.field('type')}>
          <option value="balance">{t('admin.users.usdBalance')}</option>
          <option value="credits">{t('admin.users.credits')}</option>
        </SelectField>
        <Field
          label={credits ? t('admin.users.amountCredits') : t('admin.users.amountUsd')}
          type="number"
          min={credits ? 1 : 0.01}
          step={credits ? 1 : 0.01}
          inputMode={credits ? 'numeric' : 'decimal'}
          {...form.field('amount')}
          required
        />
      </form>
    </FormModal>
  );
}

export function DeleteUserModal({ user, onClose }: { user: User; onClose: () => void }) {
  const remove = useDeleteUser();
  const t = useT();

  async function confirm() {
    try {
      const answer = await remove.mutateAsync(user._id);
      toast.success(answerText(answer.message, t('admin.users.deleted')));
      onClose();
    } catch (err) {
      toast.error(errorMessage(err, t('admin.users.deleteFailed')));
    }
  }

  return (
    <ConfirmModal
      title={t('admin.users.deleteTitle')}
      confirmLabel={t('admin.users.deleteTitle')}
      busyLabel={t('admin.users.deleting')}
      busy={remove.isPending}
      onConfirm={asyncHandler(confirm)}
      onClose={onClose}
    >
      <p>
        <FormattedMessage
          id="admin.users.deleteConfirm"
          values={{ username: user.username, email: user.email, strong: (chunks) => <strong>{chunks}</strong> }}
        />
      </p>
      <p className="muted">{t('admin.users.deleteKeeps')}</p>
    </ConfirmModal>
  );
}
