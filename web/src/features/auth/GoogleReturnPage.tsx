// Where the browser lands after Google (/login/google): collects the outcome the server kept in a
// short-lived HttpOnly cookie, so no token ever travels in a URL.
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router-dom';
import { PageSpinner } from '../../components/ui/spinner';
import { toast } from '../../components/ui/toast';
import { ApiError, errorMessage } from '../../lib/api';
import { SignInError, useCompleteSignIn } from '../../lib/session';
import { completeGoogleRequest, TWO_FACTOR_LOGIN_PATH } from './api';
import { useT } from '../../lib/i18n';
import { answerText } from '../../lib/server-words';

export function GoogleReturnPage() {
  const t = useT();
  const navigate = useNavigate();
  const completeSignIn = useCompleteSignIn();
  // The outcome can be collected once; StrictMode's second effect must not ask again.
  const asked = useRef(false);

  useEffect(() => {
    if (asked.current) return;
    asked.current = true;
    completeGoogleRequest()
      .then((answer) => {
        if ('connected' in answer) {
          toast.success(answerText(answer.message, t('auth.google.connected')));
          void navigate('/settings/security', { replace: true });
        } else if ('requires2FA' in answer) {
          void navigate(TWO_FACTOR_LOGIN_PATH, { replace: true, state: { challenge: answer.challenge } });
        } else {
          completeSignIn(answer);
          toast.success(t('auth.signedIn'));
          void navigate('/dashboard', { replace: true });
        }
      })
      .catch((err) => {
        const connecting = err instanceof ApiError && err.details?.intent === 'connect';
        toast.error(
          err instanceof SignInError
            ? err.message
            : errorMessage(err, connecting ? t('auth.google.connectFailed') : t('auth.google.failed')),
        );
        void navigate(connecting ? '/settings/security' : '/login', { replace: true });
      });
  }, [navigate, completeSignIn, t]);

  return <PageSpinner label={t('auth.google.finishing')} />;
}
