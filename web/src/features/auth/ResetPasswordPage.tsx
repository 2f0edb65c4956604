// /reset-password#token=…: the token rides after '#', so it never reaches a server log; it is read
// once and removed from the address bar.
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { newPasswordSchema, PASSWORD_HINT } from '@schemas/password-policy';
import { PasswordStrength } from '../../components/PasswordStrength';
import { Field } from '../../components/ui/field';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { clearSession } from '../../lib/session';
import { resetPasswordRequest } from './api';
import { AuthLayout } from './AuthLayout';

function takeTokenFromAddress(): string | null {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (token) window.history.replaceState(window.history.state, '', window.location.pathname);
  return token;
}

export function ResetPasswordPage() {
  const navigate = useNavigate();
  const [token] = useState(takeTokenFromAddress);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<{ password?: string; confirm?: string }>({});
  const [submitting, setSubmitting] = useState(false);

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

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const found: typeof errors = {};
    const strong = newPasswordSchema.safeParse(password);
    if (!strong.success) found.password = strong.error.issues[0].message;
    if (!confirm) found.confirm = 'Please confirm your new password';
    else if (confirm !== password) found.confirm = 'Passwords do not match';
    setErrors(found);
    if (Object.keys(found).length) return;
    setSubmitting(true);
    try {
      const answer = await resetPasswordRequest({ token: token!, password });
      // Every session ended on the server, this one included.
      clearSession();
      toast.success(answer.message);
      navigate('/login', { replace: true });
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to reset the password'));
      setSubmitting(false);
    }
  }

  return (
    <AuthLayout title="Choose a new password" subtitle="You will be signed out everywhere and can sign in with the new password.">
      <form onSubmit={onSubmit} noValidate>
        <Field label="New password" type="password" name="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} error={errors.password} hint={PASSWORD_HINT} required autoFocus />
        <PasswordStrength password={password} />
        <Field label="Confirm new password" type="password" name="confirm" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} error={errors.confirm} required />
        <button type="submit" className="btn btn-primary btn-block" disabled={submitting}>
          {submitting ? 'Saving…' : 'Set new password'}
        </button>
      </form>
      <p className="auth-switch">
        <Link to="/login">Back to sign in</Link>
      </p>
    </AuthLayout>
  );
}
