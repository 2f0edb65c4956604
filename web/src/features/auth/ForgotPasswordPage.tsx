import { useState } from 'react';
import { Link } from 'react-router-dom';
import { forgotPasswordSchema } from '../../../../worker/modules/accounts/schemas/security';
import { Field } from '../../components/ui/field';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { schemaErrors, useForm } from '../../lib/form';
import { forgotPasswordRequest } from './api';
import { AuthLayout } from './AuthLayout';
import { useT } from '../../lib/i18n';

export function ForgotPasswordPage() {
  const [sent, setSent] = useState<string | null>(null);
  const t = useT();
  const form = useForm({
    initial: { email: '' },
    validate: (values) => schemaErrors(forgotPasswordSchema, values),
    // The same answer whether or not the address has an account.
    submit: async ({ email }) => setSent((await forgotPasswordRequest(forgotPasswordSchema.parse({ email }).email)).message),
    onError: (err) => {
      toast.error(errorMessage(err, t('auth.forgot.failed')));
      return null;
    },
  });

  return (
    <AuthLayout title={t('auth.forgot.title')} subtitle={t('auth.forgot.subtitle')}>
      {sent ? (
        <div className="notice notice-success" role="status">
          {t('auth.forgot.sent')}
        </div>
      ) : (
        <form onSubmit={form.onSubmit} noValidate>
          <Field label={t('auth.email')} type="email" autoComplete="email" {...form.field('email')} required autoFocus />
          <button type="submit" className="btn btn-primary btn-block" disabled={form.submitting}>
            {form.submitting ? t('auth.forgot.sending') : t('auth.forgot.submit')}
          </button>
        </form>
      )}
      <p className="auth-switch">
        {t('auth.forgot.remembered')} <Link to="/login">{t('auth.backToSignIn')}</Link>
      </p>
    </AuthLayout>
  );
}
