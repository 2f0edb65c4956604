// /reset-password#token=…: the token rides after '#', so it never reaches a server log; it is read
// once and removed from the address bar.
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { resetPasswordSchema } from '../../../../worker/modules/accounts/schemas/security';
import { PasswordStrength } from '../../components/PasswordStrength';
import { Field } from '../../components/ui/field';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { schemaErrors, useForm, type FieldErrors } from '../../lib/form';
import { clearSession } from '../../lib/session';
import { resetPasswordRequest } from './api';
import { AuthLayout } from './AuthLayout';
import { translate, useT } from '../../lib/i18n';
import { PASSWORD_MIN } from '../../../../worker/modules/accounts/schemas/auth-rules';
import { answerText } from '../../lib/server-words';

type Form = { password: string; confirm: string };
// The token is checked by the server; the form checks what the person typed, by the API's rule.
const passwordRule = resetPasswordSchema.pick({ password: true });

export function validateNewPassword(values: Form): FieldErrors<Form> {
  const errors = schemaErrors<Form>(passwordRule, values);
  if (!values.confirm) errors.confirm = translate('auth.reset.confirmRequired');
  else if (values.confirm !== values.password) errors.confirm = translate('auth.reset.mismatch');
  return errors;
}

function takeTokenFromAddress(): string | null {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (token) window.history.replaceState(window.history.state, '', window.location.pathname);
  return token;
}

export function ResetPasswordPage() {
  const t = useT();
  const navigate = useNavigate();
  const [token] = useState(takeTokenFromAddress);
  const form = useForm<Form>({
    initial: { password: '', confirm: '' },
    validate: validateNewPassword,
    submit: async ({ password }) => {
      const answer = await resetPasswordRequest({ token: token!, password });
      // Every session ended on the server, this one included.
      clearSession();
      toast.success(answerText(answer.message, t('auth.reset.done')));
      void navigate('/login', { replace: true });
    },
    onError: (err) => {
      toast.error(errorMessage(err, t('auth.reset.failed')));
      return null;
    },
  });

  if (!token) {
    return (
      <AuthLayout title={t('auth.reset.title')}>
        <div className="notice notice-error" role="alert">
          {t('auth.reset.incomplete')}
        </div>
        <Link to="/forgot-password" className="btn btn-primary btn-block">
          {t('auth.reset.requestNew')}
        </Link>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout title={t('auth.reset.chooseTitle')} subtitle={t('auth.reset.subtitle')}>
      <form onSubmit={form.onSubmit} noValidate>
        <Field
          label={t('auth.reset.newPassword')}
          type="password"
          autoComplete="new-password"
          {...form.field('password')}
          hint={t('validation.passwordHint', { min: PASSWORD_MIN })}
          required
          autoFocus
        />
        <PasswordStrength password={form.values.password} />
        <Field label={t('auth.reset.confirmPassword')} type="password" autoComplete="new-password" {...form.field('confirm')} required />
        <button type="submit" className="btn btn-primary btn-block" disabled={form.submitting}>
          {form.submitting ? t('auth.reset.saving') : t('auth.reset.submit')}
        </button>
      </form>
      <p className="auth-switch">
        <Link to="/login">{t('auth.backToSignIn')}</Link>
      </p>
    </AuthLayout>
  );
}
