// User Management's dialogs. Each form is checked with the API's own schema before it is sent,
// so the messages are the server's.
import { useState, type FormEvent } from 'react';
import { addFundsSchema, createUserSchema, updateUserSchema, type FundType } from '../../../../worker/modules/accounts/schemas/admin-users';
import { PASSWORD_HINT } from '../../../../worker/modules/accounts/schemas/password-policy';
import type { Schemas } from '../../../../worker/platform/api-client';
import { PasswordStrength } from '../../components/PasswordStrength';
import { useStepUpPrompt } from '../../components/StepUp';
import { Field } from '../../components/ui/field';
import { ConfirmModal } from '../../components/ui/confirm-modal';
import { FormModal } from '../../components/ui/form-modal';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { formatCredits, formatUsd } from '../../lib/format';
import { useAddFunds, useCreateUser, useDeleteUser, useUpdateUser } from './api';
import { asyncHandler } from '../../lib/async-handler';

type Role = Schemas['Role'];
type User = Schemas['User'];

type Errors = Record<string, string>;

/** The first message for each field of a failed parse. */
function fieldErrors(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): Errors {
  const errors: Errors = {};
  for (const issue of issues) errors[String(issue.path[0] ?? 'form')] ??= issue.message;
  return errors;
}

const without = (errors: Errors, field: string) => {
  const { [field]: _, ...rest } = errors;
  return rest;
};

/** Balance is parsed as a decimal and credits as an integer, each 0 when empty. */
const parseBalance = (text: string) => (text.trim() === '' ? 0 : Number.parseFloat(text));
const parseCredits = (text: string) => (text.trim() === '' ? 0 : Number.parseInt(text, 10));

function RoleSelect({ id, value, onChange }: { id: string; value: Role; onChange: (role: Role) => void }) {
  return (
    <div className="field">
      <label htmlFor={id}>Role</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value as Role)}>
        <option value="user">User</option>
        <option value="reseller">Reseller</option>
        <option value="owner">Owner</option>
      </select>
    </div>
  );
}

const RANK: Record<Role, number> = { user: 0, reseller: 1, owner: 2 };

/** The server asks for proof when the change grants power: a higher role, or another address (which takes over the account). */
export function grantsPower(before: { role: Role; email: string } | null, after: { role: Role; email: string }): boolean {
  if (after.role !== 'user' && (before === null || RANK[after.role] > RANK[before.role])) return true;
  return before !== null && after.email.trim().toLowerCase() !== before.email.toLowerCase();
}

const EMPTY_NEW_USER = { username: '', email: '', password: '', role: 'user' as Role, balance: '', credits: '' };

export function CreateUserModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [form, setForm] = useState(EMPTY_NEW_USER);
  const [errors, setErrors] = useState<Errors>({});
  const create = useCreateUser();
  const stepUp = useStepUpPrompt();
  const needsProof = grantsPower(null, form);
  const set = (field: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => {
    setForm((f) => ({ ...f, [field]: e.target.value }));
    setErrors((errs) => without(errs, field));
  };

  function close() {
    setForm(EMPTY_NEW_USER);
    setErrors({});
    stepUp.reset();
    onClose();
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = createUserSchema.safeParse({ ...form, balance: parseBalance(form.balance), credits: parseCredits(form.credits) });
    if (!parsed.success) return setErrors(fieldErrors(parsed.error.issues));
    setErrors({});
    // Making a reseller or an owner grants power: the server asks for proof beyond the session.
    const proof = needsProof ? stepUp.proof() : {};
    if (!proof) return;
    try {
      const answer = await create.mutateAsync({ ...parsed.data, ...proof });
      toast.success(answer.message ?? 'User created successfully');
      close();
    } catch (err) {
      if (!stepUp.refusedBy(err)) toast.error(errorMessage(err, 'Failed to create user'));
    }
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
      <form id="create-user-form" onSubmit={asyncHandler(onSubmit)} noValidate>
        <Field
          label="Username"
          name="username"
          autoComplete="off"
          value={form.username}
          onChange={set('username')}
          error={errors.username}
          required
        />
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="off"
          value={form.email}
          onChange={set('email')}
          error={errors.email}
          required
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          value={form.password}
          onChange={set('password')}
          error={errors.password}
          hint={PASSWORD_HINT}
          required
        />
        <PasswordStrength password={form.password} username={form.username.trim()} email={form.email.trim()} />
        <RoleSelect id="create-role" value={form.role} onChange={(role) => setForm((f) => ({ ...f, role }))} />
        <div className="form-grid">
          <Field
            label="Balance (USD)"
            name="balance"
            type="number"
            min={0}
            step={0.01}
            inputMode="decimal"
            placeholder="0.00"
            value={form.balance}
            onChange={set('balance')}
            error={errors.balance}
          />
          <Field
            label="Credits"
            name="credits"
            type="number"
            min={0}
            step={1}
            inputMode="numeric"
            placeholder="0"
            value={form.credits}
            onChange={set('credits')}
            error={errors.credits}
          />
        </div>
        {needsProof &&
          stepUp.section(
            `Creating ${form.role === 'owner' ? 'an owner' : 'a reseller'} grants power, so it needs proof beyond your session.`,
          )}
      </form>
    </FormModal>
  );
}

export function EditUserModal({ user, onClose }: { user: User; onClose: () => void }) {
  const [form, setForm] = useState({
    username: user.username,
    email: user.email,
    role: user.role,
    balance: user.balance.toFixed(2),
    credits: String(user.credits),
    isActive: user.isActive,
  });
  const [errors, setErrors] = useState<Errors>({});
  const update = useUpdateUser();
  const stepUp = useStepUpPrompt();
  const raisesRole = grantsPower(user, { role: form.role, email: user.email });
  const changesEmail = form.email.trim().toLowerCase() !== user.email.toLowerCase();
  const needsProof = raisesRole || changesEmail;
  const set = (field: 'username' | 'email' | 'balance' | 'credits') => (e: React.ChangeEvent<HTMLInputElement>) => {
    setForm((f) => ({ ...f, [field]: e.target.value }));
    setErrors((errs) => without(errs, field));
  };

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    // Only what the owner changed is sent, so a balance that moved since the form opened (a
    // purchase, a top-up) is not overwritten by the value shown when it was loaded.
    const balance = parseBalance(form.balance);
    const credits = parseCredits(form.credits);
    const changes = {
      username: form.username.trim() !== user.username ? form.username : undefined,
      email: form.email.trim().toLowerCase() !== user.email ? form.email : undefined,
      role: form.role !== user.role ? form.role : undefined,
      balance: balance !== user.balance ? balance : undefined,
      credits: credits !== user.credits ? credits : undefined,
      isActive: form.isActive !== user.isActive ? form.isActive : undefined,
    };
    if (Object.values(changes).every((v) => v === undefined)) {
      toast.info('Nothing to update', 2000);
      return onClose();
    }
    const parsed = updateUserSchema.safeParse(changes);
    if (!parsed.success) return setErrors(fieldErrors(parsed.error.issues));
    setErrors({});
    // A higher role or another address grants power: the server asks for proof beyond the session.
    const proof = needsProof ? stepUp.proof() : {};
    if (!proof) return;
    try {
      const answer = await update.mutateAsync({ id: user._id, changes: { ...parsed.data, ...proof } });
      toast.success(answer.message ?? 'User updated successfully');
      onClose();
    } catch (err) {
      if (!stepUp.refusedBy(err)) toast.error(errorMessage(err, 'Failed to update user'));
    }
  }

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
      <form id="edit-user-form" onSubmit={asyncHandler(onSubmit)} noValidate>
        <Field
          label="Username"
          name="username"
          autoComplete="off"
          value={form.username}
          onChange={set('username')}
          error={errors.username}
        />
        <Field label="Email" name="email" type="email" autoComplete="off" value={form.email} onChange={set('email')} error={errors.email} />
        <RoleSelect id="edit-role" value={form.role} onChange={(role) => setForm((f) => ({ ...f, role }))} />
        <div className="form-grid">
          <Field
            label="Balance (USD)"
            name="balance"
            type="number"
            min={0}
            step={0.01}
            inputMode="decimal"
            value={form.balance}
            onChange={set('balance')}
            error={errors.balance}
          />
          <Field
            label="Credits"
            name="credits"
            type="number"
            min={0}
            step={1}
            inputMode="numeric"
            value={form.credits}
            onChange={set('credits')}
            error={errors.credits}
          />
        </div>
        <p className="field-hint">Balance and credits are set to the values above; the change is recorded in the ledger.</p>
        <label className="checkbox">
          <input type="checkbox" checked={form.isActive} onChange={(e) => setForm((f) => ({ ...f, isActive: e.target.checked }))} /> Account
          Active
        </label>
        {form.role !== user.role && (
          <p className="field-hint">
            Changing the role ends all of this account’s sessions and API tokens: they sign in again and make new tokens.
          </p>
        )}
        {!form.isActive && user.isActive && (
          <p className="field-hint" role="note">
            Deactivating signs this account out everywhere and ends its API tokens for good: reactivating the account later does not bring
            them back.
          </p>
        )}
        {needsProof &&
          stepUp.section(
            raisesRole && changesEmail
              ? `Raising the role to ${form.role} and changing the email grant power over this account.`
              : raisesRole
                ? `Raising the role to ${form.role} grants power.`
                : 'Changing the email decides who can reset this account’s password.',
          )}
      </form>
    </FormModal>
  );
}

export function AddFundsModal({ user, onClose }: { user: User; onClose: () => void }) {
  const [type, setType] = useState<FundType>('balance');
  const [amount, setAmount] = useState('');
  const [error, setError] = useState<string | null>(null);
  const addFunds = useAddFunds();

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = addFundsSchema.safeParse({ type, amount: amount.trim() === '' ? undefined : Number(amount) });
    if (!parsed.success) return setError(parsed.error.issues[0].message);
    setError(null);
    try {
      const answer = await addFunds.mutateAsync({ id: user._id, body: parsed.data });
      toast.success(answer.message ?? 'Funds added');
      onClose();
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to add balance'));
    }
  }

  return (
    <FormModal
      open
      size="sm"
      title="Add Balance or Credits"
      onClose={onClose}
      busy={addFunds.isPending}
      formId="add-funds-form"
      submitLabel={type === 'credits' ? 'Add Credits' : 'Add Balance'}
      busyLabel="Adding…"
    >
      <form id="add-funds-form" onSubmit={asyncHandler(onSubmit)} noValidate>
        <p className="muted">
          {user.username} has {formatUsd(user.balance)} and {formatCredits(user.credits)} credits.
        </p>
        <div className="field">
          <label htmlFor="funds-type">Add to</label>
          <select id="funds-type" value={type} onChange={(e) => setType(e.target.value as FundType)}>
            <option value="balance">USD Balance</option>
            <option value="credits">Credits</option>
          </select>
        </div>
        <Field
          label={type === 'credits' ? 'Amount (credits)' : 'Amount (USD)'}
          name="amount"
          type="number"
          min={type === 'credits' ? 1 : 0.01}
          step={type === 'credits' ? 1 : 0.01}
          inputMode={type === 'credits' ? 'numeric' : 'decimal'}
          value={amount}
          onChange={(e) => {
            setAmount(e.target.value);
            setError(null);
          }}
          error={error}
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
