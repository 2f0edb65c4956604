import { useAtomValue } from 'jotai';
import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate } from 'react-router-dom';
import { PASSWORD_MIN, registerSchema } from '@schemas/auth';
import { PASSWORD_HINT } from '@schemas/password-policy';
import { PasswordStrength } from '../../components/PasswordStrength';
import { Field } from '../../components/ui/field';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { tokenAtom } from '../../lib/session';
import { registerRequest, SignInError, useCompleteSignIn } from './api';
import { AuthLayout } from './AuthLayout';

type Form = { username: string; email: string; password: string; confirmPassword: string };
type Errors = Partial<Record<keyof Form, string>>;

export function validateRegistration(form: Form): Errors {
  const errors: Errors = {};
  if (!form.confirmPassword) errors.confirmPassword = 'Please confirm your password';
  const result = registerSchema.safeParse(form);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const field = issue.path[0] as keyof Form;
      errors[field] ??= issue.message;
    }
  }
  return errors;
}

export function RegisterPage() {
  const token = useAtomValue(tokenAtom);
  const navigate = useNavigate();
  const completeSignIn = useCompleteSignIn();
  const [form, setForm] = useState<Form>({ username: '', email: '', password: '', confirmPassword: '' });
  const [errors, setErrors] = useState<Errors>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  if (token && !submitting) return <Navigate to="/dashboard" replace />;
  const set = (field: keyof Form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm((f) => ({ ...f, [field]: e.target.value }));

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setServerError(null);
    const found = validateRegistration(form);
    setErrors(found);
    if (Object.keys(found).length) return;
    setSubmitting(true);
    try {
      const answer = await registerRequest({ username: form.username.trim(), email: form.email.trim(), password: form.password });
      completeSignIn(answer);
      toast.success(answer.message || 'Registration successful');
      navigate('/dashboard', { replace: true });
    } catch (err) {
      setServerError(err instanceof SignInError ? err.message : errorMessage(err, 'Registration failed'));
      setSubmitting(false);
    }
  }

  return (
    <AuthLayout title="Create your account" subtitle="Buy and manage your license keys in one place.">
      {serverError && (
        <div className="notice notice-error" role="alert">
          {serverError}
        </div>
      )}
      <form onSubmit={onSubmit} noValidate>
        <Field label="Username" name="username" autoComplete="username" value={form.username} onChange={set('username')} error={errors.username} required minLength={3} maxLength={30} />
        <Field label="Email" type="email" name="email" autoComplete="email" value={form.email} onChange={set('email')} error={errors.email} required />
        <Field label="Password" type="password" name="password" autoComplete="new-password" value={form.password} onChange={set('password')} error={errors.password} hint={PASSWORD_HINT} required minLength={PASSWORD_MIN} />
        <PasswordStrength password={form.password} username={form.username.trim()} email={form.email.trim()} />
        <Field label="Confirm password" type="password" name="confirmPassword" autoComplete="new-password" value={form.confirmPassword} onChange={set('confirmPassword')} error={errors.confirmPassword} required />
        <button type="submit" className="btn btn-primary btn-block" disabled={submitting}>
          {submitting ? 'Creating account…' : 'Create account'}
        </button>
      </form>
      <p className="auth-switch">
        Already have an account? <Link to="/login">Sign in</Link>
      </p>
    </AuthLayout>
  );
}
