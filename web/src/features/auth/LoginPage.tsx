import { useAtomValue } from 'jotai';
import { useState } from 'react';
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from 'react-router-dom';
// The zod-free rules: zod stays out of the sign-in page's bundle.
import { signInFormErrors, TOKEN_AS_EMAIL_MESSAGE } from '../../../../worker/modules/accounts/schemas/auth-rules';
import { Field } from '../../components/ui/field';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { useForm } from '../../lib/form';
import { SignInError, tokenAtom, useCompleteSignIn } from '../../lib/session';
import { googleSignInUrl, loginRequest, TWO_FACTOR_LOGIN_PATH, type TwoFactorLoginState } from './api';
import { AuthLayout } from './AuthLayout';
import { asyncHandler } from '../../lib/async-handler';
import { useT } from '../../lib/i18n';
import { validationMessage } from '../../lib/form/messages';

type FromState = { from?: { pathname: string; search?: string } } | null;

export function LoginPage() {
  const token = useAtomValue(tokenAtom);
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  const completeSignIn = useCompleteSignIn();
  const t = useT();
  const [leavingForGoogle, setLeavingForGoogle] = useState(false);
  const from = (location.state as FromState)?.from;
  const destination = from ? `${from.pathname}${from.search ?? ''}` : '/dashboard';

  const form = useForm({
    initial: { email: '', password: '', rememberMe: false },
    validate: (values) => {
      const found = signInFormErrors(values);
      if (found.email === TOKEN_AS_EMAIL_MESSAGE) toast.error(validationMessage(TOKEN_AS_EMAIL_MESSAGE));
      return Object.fromEntries(Object.entries(found).map(([field, message]) => [field, validationMessage(message)]));
    },
    submit: async ({ email, password, rememberMe }) => {
      const answer = await loginRequest({ email: email.trim(), password, rememberMe });
      if ('requires2FA' in answer) {
        void navigate(TWO_FACTOR_LOGIN_PATH, { state: { challenge: answer.challenge, from, rememberMe } satisfies TwoFactorLoginState });
        return;
      }
      completeSignIn(answer);
      toast.success(t('auth.signedIn'));
      void navigate(destination, { replace: true });
    },
    onError: (err) => {
      toast.error(err instanceof SignInError ? err.message : errorMessage(err, t('auth.signIn.failed')));
      return null;
    },
  });

  // Already signed in on arrival; a sign-in made here navigates by itself.
  if (token && form.status === 'idle') return <Navigate to={destination} replace />;

  // The app asks for Google's address first, so a server without Google says so here (404 NOT_CONFIGURED).
  async function signInWithGoogle() {
    setLeavingForGoogle(true);
    try {
      const { url } = await googleSignInUrl(form.values.rememberMe);
      window.location.assign(url);
    } catch (err) {
      toast.error(errorMessage(err, t('auth.google.failed')));
      setLeavingForGoogle(false);
    }
  }

  return (
    <AuthLayout title={t('auth.signIn.title')} subtitle={t('auth.signIn.subtitle')}>
      {params.get('expired') === 'true' && (
        <div className="notice notice-warning" role="status">
          {t('auth.signIn.expired')}
        </div>
      )}
      <form onSubmit={form.onSubmit} noValidate>
        <Field label={t('auth.email')} type="email" autoComplete="email" {...form.field('email')} required />
        <Field label={t('auth.password')} type="password" autoComplete="current-password" {...form.field('password')} required />
        <div className="form-row-between">
          <label className="checkbox">
            <input type="checkbox" {...form.checkbox('rememberMe')} /> {t('auth.signIn.rememberMe')}
          </label>
          <Link to="/forgot-password">{t('auth.signIn.forgot')}</Link>
        </div>
        <button type="submit" className="btn btn-primary btn-block" disabled={form.submitting}>
          {form.submitting ? t('auth.signIn.submitting') : t('auth.signIn.submit')}
        </button>
      </form>
      <div className="divider">
        <span>{t('auth.or')}</span>
      </div>
      <button type="button" className="btn btn-secondary btn-block" onClick={asyncHandler(signInWithGoogle)} disabled={leavingForGoogle}>
        <span aria-hidden="true" className="google-mark">
          G
        </span>{' '}
        {leavingForGoogle ? t('auth.google.opening') : t('auth.google.signIn')}
      </button>
      <p className="auth-switch">
        {t('auth.signIn.noAccount')} <Link to="/register">{t('auth.signIn.createOne')}</Link>
      </p>
    </AuthLayout>
  );
}
