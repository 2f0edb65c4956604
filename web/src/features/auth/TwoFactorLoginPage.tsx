// The second step of sign-in when two-factor is on: a code from the app, or a recovery token.
import { useAtomValue } from 'jotai';
import { useState, type FormEvent } from 'react';
import { Link, Navigate, useLocation, useNavigate } from 'react-router-dom';
import { CodeInput, isCompleteCode } from '../../components/ui/code-input';
import { Field } from '../../components/ui/field';
import { toast } from '../../components/ui/toast';
import { ApiError, errorMessage } from '../../lib/api';
import { SignInError, tokenAtom, useCompleteSignIn } from '../../lib/session';
import { loginTwoFactorRequest, type TwoFactorLoginState } from './api';
import { AuthLayout } from './AuthLayout';
import { asyncHandler } from '../../lib/async-handler';
import { useT } from '../../lib/i18n';

export function TwoFactorLoginPage() {
  const t = useT();
  const token = useAtomValue(tokenAtom);
  const location = useLocation();
  const navigate = useNavigate();
  const completeSignIn = useCompleteSignIn();
  const state = location.state as TwoFactorLoginState | null;
  const [useRecovery, setUseRecovery] = useState(false);
  const [code, setCode] = useState('');
  const [recoveryToken, setRecoveryToken] = useState('');
  const [submitting, setSubmitting] = useState(false);

  const from = state?.from;
  const destination = from ? `${from.pathname}${from.search ?? ''}` : '/dashboard';
  if (token && !submitting) return <Navigate to={destination} replace />;
  // Reached without a password step (a reload, a bookmark): start over.
  if (!state?.challenge) return <Navigate to="/login" replace />;

  const ready = useRecovery ? recoveryToken.trim().length > 0 : isCompleteCode(code);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!ready || !state) return;
    setSubmitting(true);
    try {
      const answer = await loginTwoFactorRequest(
        useRecovery ? { challenge: state.challenge, recoveryToken: recoveryToken.trim() } : { challenge: state.challenge, code },
      );
      completeSignIn(answer);
      toast.success(t('auth.signedIn'));
      void navigate(destination, { replace: true });
    } catch (err) {
      setSubmitting(false);
      if (err instanceof ApiError && err.code === 'UNAUTHORIZED') {
        // The five-minute challenge ran out: back to the password step.
        toast.error(errorMessage(err, t('auth.twoFactor.expired')));
        void navigate('/login', { replace: true, state: from ? { from } : null });
        return;
      }
      toast.error(err instanceof SignInError ? err.message : errorMessage(err, t('auth.twoFactor.failed')));
      setCode('');
    }
  }

  return (
    <AuthLayout title={t('auth.twoFactor.title')} subtitle={useRecovery ? t('auth.twoFactor.recoveryHint') : t('auth.twoFactor.codeHint')}>
      <form onSubmit={asyncHandler(onSubmit)} noValidate>
        {useRecovery ? (
          <Field
            label={t('auth.twoFactor.recoveryToken')}
            name="recoveryToken"
            autoComplete="off"
            spellCheck={false}
            className="mono"
            value={recoveryToken}
            onChange={(e) => setRecoveryToken(e.target.value)}
            placeholder="XXXX-XXXX-XXXX-XXXX"
            autoFocus
          />
        ) : (
          <CodeInput label={t('auth.twoFactor.code')} value={code} onChange={setCode} autoFocus />
        )}
        <button type="submit" className="btn btn-primary btn-block" disabled={!ready || submitting}>
          {submitting ? t('auth.twoFactor.verifying') : t('auth.twoFactor.verify')}
        </button>
      </form>
      <p className="auth-switch">
        <button type="button" className="link-button" onClick={() => setUseRecovery(!useRecovery)}>
          {useRecovery ? t('auth.twoFactor.useCode') : t('auth.twoFactor.useRecovery')}
        </button>
      </p>
      <p className="auth-switch">
        <Link to="/login">{t('auth.backToSignIn')}</Link>
      </p>
    </AuthLayout>
  );
}
