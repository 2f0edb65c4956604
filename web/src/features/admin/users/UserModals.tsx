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
import { schemaErrors, useForm } from '../../../lib/form';
import { formatCredits, formatUsd } from '../../../lib/format';
import { useAddFunds, useCreateUser, useDeleteUser, useUpdateUser } from './api';
import { asyncHandler } from '../../../lib/async-handler';

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
  const form = useForm<NewUser>({
    initial: EMPTY_NEW_USER,
    validate: (v) => schemaErrors(createUserSchema, newUserInput(v)),
    submit: async (v) => {
      // Making a reseller or an owner grants power: the server asks for proof beyond the session.
      const proof = grantsPower(null, v) ? stepUp.proof() : {};
      if (!proof) return;
      const answer = await create.mutateAsync({ ...createUserSchema.parse(newUserInput(v)), ...proof });
      toast.success(answer.message ?? 'User created successfully');
      close();
    },
    onError: (err) => {
      if (!stepUp.refusedBy(err)) toast.error(errorMessage(err, 'Failed to create user'));
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
      title="Create User"
      onClose={close}
      busy={create.isPending}
      formId="create-user-form"
      submitLabel="Create User"
      busyLabel="Creating…"
    >
      <form id="create-user-form" onSubmit={form.onSubmit} noValidate>
        <Field label="Username" autoComplete="off" {...form.field('username')} required />
        <Field label="Email" type="email" autoComplete="off" {...form.field('email')} required />
        <Field label="Password" type="password" autoComplete="new-password" {...form.field('password')} hint={PASSWORD_HINT} required />
        <PasswordStrength password={form.values.password} username={form.values.username.trim()} email={form.values.email.trim()} />
        <SelectField label="Role" id="create-role" {...form.field('role')}>
          <RoleOptions />
        </SelectField>
        <div className="form-grid">
          <Field
            label="Balance (USD)"
            type="number"
            min={0}
            step={0.01}
            inputMode="decimal"
            placeholder="0.00"
            {...form.field('balance')}
          />
          <Field label="Credits" type="number" min={0} step={1} inputMode="numeric" placeholder="0" {...form.field('credits')} />
        </div>
        {needsProof &&
          stepUp.section(
            `Creating ${form.values.role === 'owner' ? 'an owner' : 'a reseller'} grants power, so it needs proof beyond your session.`,
          )}
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
  const form = useForm<UserEdit>({
    initial: {
      username: user.username,
      email: user.email,
      role: user.role,
      balance: user.balance.toFixed(2),
      credits: String(user.credits),
      isActive: user.isActive,
    },
    validate: (v) => schemaErrors(updateUserSchema, changesOf(user, v)),
    submit: async (v) => {
      const changes = changesOf(user, v);
      if (Object.values(changes).every((c) => c === undefined)) {
        toast.info('Nothing to update', 2000);
        return onClose();
      }
      // A higher role or another address grants power: the server asks for proof beyond the session.
      const proof = grantsPower(user, v) ? stepUp.proof() : {};
      if (!proof) return;
      const answer = await update.mutateAsync({ id: user._id, changes: { ...updateUserSchema.parse(changes), ...proof } });
      toast.success(answer.message ?? 'User updated successfully');
      onClose();
    },
    onError: (err) => {
      if (!stepUp.refusedBy(err)) toast.error(errorMessage(err, 'Failed to update user'));
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
      title={`Edit ${user.username}`}
      onClose={onClose}
      busy={update.isPending}
      formId="edit-user-form"
      submitLabel="Save Changes"
      busyLabel="Saving…"
    >
      <form id="edit-user-form" onSubmit={form.onSubmit} noValidate>
        <Field label="Username" autoComplete="off" {...form.field('username')} />
        <Field label="Email" type="email" autoComplete="off" {...form.field('email')} />
        <SelectField label="Role" id="edit-role" {...form.field('role')}>
          <RoleOptions />
        </SelectField>
        <div className="form-grid">
          <Field label="Balance (USD)" type="number" min={0} step={0.01} inputMode="decimal" {...form.field('balance')} />
          <Field label="Credits" type="number" min={0} step={1} inputMode="numeric" {...form.field('credits')} />
        </div>
        <p className="field-hint">Balance and credits are set to the values above; the change is recorded in the ledger.</p>
        <CheckboxField label="Account Active" {...form.checkbox('isActive')} />
        {role !== user.role && (
          <p className="field-hint">
            Changing the role ends all of this account’s sessions and API tokens: they sign in again and make new tokens.
          </p>
        )}
        {!isActive && user.isActive && (
          <p className="field-hint" role="note">
            Deactivating signs this account out everywhere and ends its API tokens for good: reactivating the account later does not bring
            them back.
          </p>
        )}
        {needsProof &&
          stepUp.section(
            raisesRole && changesEmail
              ? `Raising the role to ${role} and changing the email grant power over this account.`
              : raisesRole
                ? `Raising the role to ${role} grants power.`
                : 'Changing the email decides who can reset this account’s password.',
          )}
      </form>
    </FormModal>
  );
}

type Funds = { type: FundType; amount: string };
const fundsInput = (v: Funds) => ({ type: v.type, amount: v.amount.trim() === '' ? undefined : Number(v.amount) });

export function AddFundsModal({ user, onClose }: { user: User; onClose: () => void }) {
  const addFunds = useAddFunds();
  const form = useForm<Funds>({
    initial: { type: 'balance', amount: '' },
    validate: (v) => schemaErrors(addFundsSchema, fundsInput(v)),
    submit: async (v) => {
      const answer = await addFunds.mutateAsync({ id: user._id, body: addFundsSchema.parse(fundsInput(v)) });
      toast.success(answer.message ?? 'Funds added');
      onClose();
    },
    onError: (err) => {
      toast.error(errorMessage(err, 'Failed to add balance'));
      return null;
    },
  });
  const credits = form.values.type === 'credits';

  return (
    <FormModal
      open
      size="sm"
      title="Add Balance or Credits"
      onClose={onClose}
      busy={addFunds.isPending}
      formId="add-funds-form"
      submitLabel={credits ? 'Add Credits' : 'Add Balance'}
      busyLabel="Adding…"
    >
      <form id="add-funds-form" onSubmit={form.onSubmit} noValidate>
        <p className="muted">
          {user.username} has {formatUsd(user.balance)} and {formatCredits(user.credits)} credits.
        </p>
        <SelectField label="Add to" id="funds-type" {...form.field('type')}>
          <option value="balance">USD Balance</option>
          <option value="credits">Credits</option>
        </SelectField>
        <Field
          label={credits ? 'Amount (credits)' : 'Amount (USD)'}
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

  async function confirm() {
    try {
      const answer = await remove.mutateAsync(user._id);
      toast.success(answer.message ?? 'User deleted successfully');
      onClose();
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to delete user'));
    }
  }

  return (
    <ConfirmModal
      title="Delete User"
      confirmLabel="Delete User"
      busyLabel="Deleting…"
      busy={remove.isPending}
      onConfirm={asyncHandler(confirm)}
      onClose={onClose}
    >
      <p>
        Delete <strong>{user.username}</strong> ({user.email})? This cannot be undone.
      </p>
      <p className="muted">They are signed out at once. Their license keys and their ledger history are kept.</p>
    </ConfirmModal>
  );
}
