import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { PASSWORD_MIN } from '../../../../worker/modules/accounts/schemas/auth-rules';
import { PASSWORD_HINT, passwordProblem, type PasswordOwner } from '../../../../worker/modules/accounts/schemas/password-policy';
import { PasswordStrength } from '../../components/PasswordStrength';
import { Card } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { useCurrentUser } from '../../lib/session';
import { useChangePassword } from './api';
import { asyncHandler } from '../../lib/async-handler';

type Form = { currentPassword: string; newPassword: string; confirmPassword: string };
type Errors = Partial<Record<keyof Form, string>>;
const EMPTY: Form = { currentPassword: '', newPassword: '', confirmPassword: '' };

/** All three required, new and confirm match; and the password policy, as the server applies it. */
export function validatePasswordChange(form: Form, owner: PasswordOwner = {}): Errors {
  const errors: Errors = {};
  if (!form.currentPassword) errors.currentPassword = 'Current password is required';
  const problem = passwordProblem(form.newPassword, owner);
  if (problem) errors.newPassword = problem;
  if (!form.confirmPassword) errors.confirmPassword = 'Please confirm the new password';
  else if (form.confirmPassword !== form.newPassword) errors.confirmPassword = 'New passwords do not match';
  return errors;
}

export function PasswordCard({ hasPassword }: { hasPassword: boolean }) {
  const [form, setForm] = useState<Form>(EMPTY);
  const [errors, setErrors] = useState<Errors>({});
  // On by default: tokens made while the old password was known end with it.
  const [endApiTokens, setEndApiTokens] = useState(true);
  const change = useChangePassword();
  const user = useCurrentUser();
  const mayHoldApiTokens = user?.role === 'owner' || user?.role === 'reseller';
  const set = (field: keyof Form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm((f) => ({ ...f, [field]: e.target.value }));

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const found = validatePasswordChange(form, user ?? {});
    setErrors(found);
    if (found.confirmPassword === 'New passwords do not match') toast.error('New passwords do not match');
    if (Object.keys(found).length) return;
    try {
      const answer = await change.mutateAsync({
        currentPassword: form.currentPassword,
        newPassword: form.newPassword,
        keepApiTokens: !endApiTokens,
      });
      toast.success(answer.message || 'Password changed successfully');
      setForm(EMPTY);
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to change password'));
    }
  }

  if (!hasPassword) {
    return (
      <Card title="Password">
        <p className="muted">
          This account signs in with Google and has no password yet. To set one, use <Link to="/forgot-password">Forgot password</Link>: we
          email you a link.
        </p>
      </Card>
    );
  }

  return (
    <Card title="Change password">
      <form onSubmit={asyncHandler(onSubmit)} noValidate aria-label="Change password">
        <Field
          label="Current password"
          type="password"
          name="currentPassword"
          autoComplete="current-password"
          value={form.currentPassword}
          onChange={set('currentPassword')}
          error={errors.currentPassword}
          required
        />
        <Field
          label="New password"
          type="password"
          name="newPassword"
          autoComplete="new-password"
          value={form.newPassword}
          onChange={set('newPassword')}
          error={errors.newPassword}
          hint={PASSWORD_HINT}
          required
          minLength={PASSWORD_MIN}
        />
        <PasswordStrength password={form.newPassword} username={user?.username} email={user?.email} />
        <Field
          label="Confirm new password"
          type="password"
          name="confirmPassword"
          autoComplete="new-password"
          value={form.confirmPassword}
          onChange={set('confirmPassword')}
          error={errors.confirmPassword}
          required
          minLength={PASSWORD_MIN}
        />
        {mayHoldApiTokens && (
          <label className="checkbox">
            <input type="checkbox" checked={endApiTokens} onChange={(e) => setEndApiTokens(e.target.checked)} /> Also revoke my API tokens
          </label>
        )}
        <p className="field-hint">Changing your password signs you out everywhere else.</p>
        <button type="submit" className="btn btn-primary" disabled={change.isPending}>
          {change.isPending ? 'Changing…' : 'Change password'}
        </button>
      </form>
    </Card>
  );
}
