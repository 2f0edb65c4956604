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

type FromState = { from?: { pathname: string; search?: string } } | null;

export function LoginPage() {
  const token = useAtomValue(tokenAtom);
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  const completeSignIn = useCompleteSignIn();
  const [leavingForGoogle, setLeavingForGoogle] = useState(false);
  const from = (location.state as FromState)?.from;
  const destination = from ? `${from.pathname}${from.search ?? ''}` : '/dashboard';

  const form = useForm({
    initial: { email: '', password: '', rememberMe: false },
    validate: (values) => {
      const found = signInFormErrors(values);
      if (found.email === TOKEN_AS_EMAIL_MESSAGE) toast.error(TOKEN_AS_EMAIL_MESSAGE);
      return found;
    },
    submit: async ({ email, password, rememberMe }) => {
      const answer = await loginRequest({ email: email.trim(), password, rememberMe });
      if ('requires2FA' in answer) {
        void navigate(TWO_FACTOR_LOGIN_PATH, { state: { challenge: answer.challenge, from, rememberMe } satisfies TwoFactorLoginState });
        return;
      }
      completeSignIn(answer);
      toast.success('Successfully logged in!');
      void navigate(destination, { replace: true });
    },
    onError: (err) => {
      toast.error(err instanceof SignInError ? err.message : errorMessage(err, 'Login failed. Please check your credentials.'));
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
      toast.error(errorMessage(err, 'Google sign-in failed. Please try again.'));
      setLeavingForGoogle(false);
    }
  }

  return (
    <AuthLayout title="Sign in" subtitle="Welcome back. Sign in to manage your license keys.">
      {params.get('expired') === 'true' && (
        <div className="notice notice-warning" role="status">
          Your session has expired. Please sign in again.
        </div>
      )}
      <form onSubmit={form.onSubmit} noValidate>
        <Field label="Email" type="email" autoComplete="email" {...form.field('email')} required />
        <Field label="Password" type="password" autoComplete="current-password" {...form.field('password')} required />
        <div className="form-row-between">
          <label className="checkbox">
            <input type="checkbox" {...form.checkbox('rememberMe')} /> Remember me
          </label>
          <Link to="/forgot-password">Forgot password?</Link>
        </div>
        <button type="submit" className="btn btn-primary btn-block" disabled={form.submitting}>
          {form.submitting ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <div className="divider">
        <span>or</span>
      </div>
      <button type="button" className="btn btn-secondary btn-block" onClick={asyncHandler(signInWithGoogle)} disabled={leavingForGoogle}>
        <span aria-hidden="true" className="google-mark">
          G
        </span>{' '}
        {leavingForGoogle ? 'Opening Google…' : 'Sign in with Google'}
      </button>
      <p className="auth-switch">
        Don't have an account? <Link to="/register">Create one</Link>
      </p>
    </AuthLayout>
  );
}
