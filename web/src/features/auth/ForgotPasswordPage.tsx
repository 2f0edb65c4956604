import { useState } from 'react';
import { Link } from 'react-router-dom';
import { forgotPasswordSchema } from '../../../../worker/modules/accounts/schemas/security';
import { Field } from '../../components/ui/field';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { schemaErrors, useForm } from '../../lib/form';
import { forgotPasswordRequest } from './api';
import { AuthLayout } from './AuthLayout';

export function ForgotPasswordPage() {
  const [sent, setSent] = useState<string | null>(null);
  const form = useForm({
    initial: { email: '' },
    validate: (values) => schemaErrors(forgotPasswordSchema, values),
    // The same answer whether or not the address has an account.
    submit: async ({ email }) => setSent((await forgotPasswordRequest(forgotPasswordSchema.parse({ email }).email)).message),
    onError: (err) => {
      toast.error(errorMessage(err, 'Failed to send the reset link'));
      return null;
    },
  });

  return (
    <AuthLayout title="Forgot your password?" subtitle="Enter your email and we will send you a link to choose a new one.">
      {sent ? (
        <div className="notice notice-success" role="status">
          {sent} The link works once, for one hour.
        </div>
      ) : (
        <form onSubmit={form.onSubmit} noValidate>
          <Field label="Email" type="email" autoComplete="email" {...form.field('email')} required autoFocus />
          <button type="submit" className="btn btn-primary btn-block" disabled={form.submitting}>
            {form.submitting ? 'Sending…' : 'Send reset link'}
          </button>
        </form>
      )}
      <p className="auth-switch">
        Remembered it? <Link to="/login">Back to sign in</Link>
      </p>
    </AuthLayout>
  );
}
