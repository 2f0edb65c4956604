import { useAtomValue } from 'jotai';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router-dom';
import { PASSWORD_MIN, registerSchema, USERNAME_MAX, USERNAME_MIN } from '../../../../worker/modules/accounts/schemas/auth';
import { PasswordStrength } from '../../components/PasswordStrength';
import { Field } from '../../components/ui/field';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { schemaErrors, useForm, type FieldErrors } from '../../lib/form';
import { SignInError, tokenAtom, useCompleteSignIn } from '../../lib/session';
import { registerRequest } from './api';
import { AuthLayout } from './AuthLayout';
import { translate, useT } from '../../lib/i18n';

/** `ref`: a reseller's referral code, from their link (`/register?ref=CODE`). */
type Form = { username: string; email: string; password: string; confirmPassword: string; ref: string };

/** The API's registration rules (registerSchema), plus the confirmation the API does not require. */
export function validateRegistration(form: Form): FieldErrors<Form> {
  const errors = schemaErrors<Form>(registerSchema, form);
  if (!form.confirmPassword) errors.confirmPassword = translate('auth.register.confirmRequired');
  return errors;
}

export function RegisterPage() {
  const token = useAtomValue(tokenAtom);
  const navigate = useNavigate();
  const completeSignIn = useCompleteSignIn();
  const t = useT();
  const [params] = useSearchParams();
  const form = useForm<Form>({
    initial: { username: '', email: '', password: '', confirmPassword: '', ref: params.get('ref')?.trim() ?? '' },
    validate: validateRegistration,
    submit: async ({ username, email, password, ref }) => {
      const answer = await registerRequest({
        username: username.trim(),
        email: email.trim(),
        password,
        ...(ref.trim() ? { ref: ref.trim() } : {}),
      });
      completeSignIn(answer);
      toast.success(t('auth.register.done'));
      void navigate('/dashboard', { replace: true });
    },
    onError: (err) => (err instanceof SignInError ? err.message : errorMessage(err, t('auth.register.failed'))),
  });

  if (token && form.status === 'idle') return <Navigate to="/dashboard" replace />;

  return (
    <AuthLayout title={t('auth.register.title')} subtitle={t('auth.register.subtitle')}>
      {form.formError && (
        <div className="notice notice-error" role="alert">
          {form.formError}
        </div>
      )}
      <form onSubmit={form.onSubmit} noValidate>
        <Field
          label={t('auth.username')}
          autoComplete="username"
          {...form.field('username')}
          required
          minLength={USERNAME_MIN}
          maxLength={USERNAME_MAX}
        />
        <Field label={t('auth.email')} type="email" autoComplete="email" {...form.field('email')} required />
        <Field
          label={t('auth.password')}
          type="password"
          autoComplete="new-password"
          {...form.field('password')}
          hint={t('validation.passwordHint', { min: PASSWORD_MIN })}
          required
          minLength={PASSWORD_MIN}
        />
        <PasswordStrength password={form.values.password} username={form.values.username.trim()} email={form.values.email.trim()} />
        <Field
          label={t('auth.register.confirmPassword')}
          type="password"
          autoComplete="new-password"
          {...form.field('confirmPassword')}
          required
        />
        <Field
          label={t('auth.register.referralCode')}
          autoComplete="off"
          {...form.field('ref')}
          maxLength={32}
          hint={t('auth.register.referralHint')}
        />
        <button type="submit" className="btn btn-primary btn-block" disabled={form.submitting}>
          {form.submitting ? t('auth.register.submitting') : t('auth.register.submit')}
        </button>
      </form>
      <p className="auth-switch">
        {t('auth.register.haveAccount')} <Link to="/login">{t('auth.signIn.submit')}</Link>
      </p>
    </AuthLayout>
  );
}
