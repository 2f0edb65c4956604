import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { emailSchema } from '@schemas/auth';
import { Field } from '../../components/ui/field';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { forgotPasswordRequest } from './api';
import { AuthLayout } from './AuthLayout';

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = emailSchema.safeParse(email);
    setError(parsed.success ? null : parsed.error.issues[0].message);
    if (!parsed.success) return;
    setSubmitting(true);
    try {
      // The same answer whether or not the address has an account.
      setSent((await forgotPasswordRequest(parsed.data)).message);
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to send the reset link'));
    } finally {
      setSubmitting(false);
    }
  }

  return (
    <AuthLayout title="Forgot your password?" subtitle="Enter your email and we will send you a link to choose a new one.">
      {sent ? (
        <div className="notice notice-success" role="status">
          {sent} The link works once, for one hour.
        </div>
      ) : (
        <form onSubmit={onSubmit} noValidate>
          <Field label="Email" type="email" name="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} error={error} required autoFocus />
          <button type="submit" className="btn btn-primary btn-block" disabled={submitting}>
            {submitting ? 'Sending…' : 'Send reset link'}
          </button>
        </form>
      )}
      <p className="auth-switch">
        Remembered it? <Link to="/login">Back to sign in</Link>
      </p>
    </AuthLayout>
  );
}
