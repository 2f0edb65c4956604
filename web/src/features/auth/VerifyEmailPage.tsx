// /verify-email#token=…: the link from the verification email. The token rides after '#', so it never
// reaches a server log; it is read once, removed from the address bar and sent to the API.
import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { errorMessage } from '../../lib/api';
import { verifyEmailRequest } from './api';
import { AuthLayout } from './AuthLayout';
import { useT } from '../../lib/i18n';
import { answerText } from '../../lib/server-words';

function takeTokenFromAddress(): string | null {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (token) window.history.replaceState(window.history.state, '', window.location.pathname);
  return token;
}

export function VerifyEmailPage() {
  const t = useT();
  const [token] = useState(takeTokenFromAddress);
  const [outcome, setOutcome] = useState<{ ok: boolean; message: string } | null>(
    token ? null : { ok: false, message: t('auth.verify.incomplete') },
  );
  useEffect(() => {
    if (!token) return;
    verifyEmailRequest(token).then(
      (answer) => setOutcome({ ok: true, message: answerText(answer.message, t('auth.verify.done')) }),
      (err: unknown) => setOutcome({ ok: false, message: errorMessage(err, t('auth.verify.failed')) }),
    );
  }, [token, t]);
  return (
    <AuthLayout title={t('auth.verify.title')}>
      {outcome === null ? (
        <p role="status">{t('auth.checkingLink')}</p>
      ) : (
        <div className={`notice ${outcome.ok ? 'notice-success' : 'notice-error'}`} role={outcome.ok ? 'status' : 'alert'}>
          {outcome.message}
        </div>
      )}
      <Link to="/dashboard" className="btn btn-primary btn-block">
        {t('auth.verify.toDashboard')}
      </Link>
    </AuthLayout>
  );
}
