// /reset-password#token=…: the token rides after '#', so it never reaches a server log; it is read
// once and removed from the address bar.
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { PASSWORD_HINT } from '../../../../worker/modules/accounts/schemas/password-policy';
import { resetPasswordSchema } from '../../../../worker/modules/accounts/schemas/security';
import { PasswordStrength } from '../../components/PasswordStrength';
import { Field } from '../../components/ui/field';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { schemaErrors, useForm, type FieldErrors } from '../../lib/form';
import { clearSession } from '../../lib/session';
import { resetPasswordRequest } from './api';
import { AuthLayout } from './AuthLayout';

type Form = { password: string; confirm: string };
// The token is checked by the server; the form checks what the person typed, by the API's rule.
const passwordRule = resetPasswordSchema.pick({ password: true });

export function validateNewPassword(values: Form): FieldErrors<Form> {
  const errors = schemaErrors<Form>(passwordRule, values);
  if (!values.confirm) errors.confirm = 'Please confirm your new password';
  else if (values.confirm !== values.password) errors.confirm = 'Passwords do not match';
  return errors;
}

function takeTokenFromAddress(): string | null {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (token) window.history.replaceState(window.history.state, '', window.location.pathname);
  return token;
}

export function ResetPasswordPage() {
  const navigate = useNavigate();
  const [token] = useState(takeTokenFromAddress);
  const form = useForm<Form>({
    initial: { password: '', confirm: '' },
    validate: validateNewPassword,
    submit: async ({ password }) => {
      const answer = await resetPasswordRequest({ token: token!, password });
      // Every session ended on the server, this one included.
      clearSession();
      toast.success(answer.message);
      void navigate('/login', { replace: true });
    },
    onError: (err) => {
      toast.error(errorMessage(err, 'Failed to reset the password'));
      return null;
    },
  });

  if (!token) {
    return (
      <AuthLayout title="Reset your password">
        <div className="notice notice-error" role="alert">
          This reset link is incomplete. Open the link from the email again, or ask for a new one.
        </div>
        <Link to="/forgot-password" className="btn btn-primary btn-block">
          Request a new link
        </Link>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout title="Choose a new password" subtitle="You will be signed out everywhere and can sign in with the new password.">
      <form onSubmit={form.onSubmit} noValidate>
        <Field
          label="New password"
          type="password"
          autoComplete="new-password"
          {...form.field('password')}
          hint={PASSWORD_HINT}
          required
          autoFocus
        />
        <PasswordStrength password={form.values.password} />
        <Field label="Confirm new password" type="password" autoComplete="new-password" {...form.field('confirm')} required />
        <button type="submit" className="btn btn-primary btn-block" disabled={form.submitting}>
          {form.submitting ? 'Saving…' : 'Set new password'}
        </button>
      </form>
      <p className="auth-switch">
        <Link to="/login">Back to sign in</Link>
      </p>
    </AuthLayout>
  );
}
