// /unsubscribe?u=…&k=…&t=…: the link at the end of a notice. It asks first (a link opened by a mail
// scanner must not turn anything off), then stops that kind of notice; the security page turns it
// back on. Mail clients that offer one-click unsubscribe POST to the API themselves (RFC 8058).
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { errorMessage } from '../../lib/api';
import { unsubscribeRequest } from './api';
import { AuthLayout } from './AuthLayout';
import { useT, type MessageId } from '../../lib/i18n';
import { answerText } from '../../lib/server-words';

const KIND_NAMES: Record<string, MessageId> = {
  expiry_reminder: 'auth.unsubscribe.kind.expiryReminder',
  receipt: 'auth.unsubscribe.kind.receipt',
  auto_renew_failed: 'auth.unsubscribe.kind.autoRenewFailed',
  low_balance: 'auth.unsubscribe.kind.lowBalance',
  new_device: 'auth.unsubscribe.kind.newDevice',
};

export function UnsubscribePage() {
  const t = useT();
  const [query] = useState(() => new URLSearchParams(window.location.search));
  const kindId = KIND_NAMES[query.get('k') ?? ''] as MessageId | undefined;
  const kind = kindId ? t(kindId) : undefined;
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; message: string } | null>(
    kind ? null : { ok: false, message: t('auth.unsubscribe.incomplete') },
  );

  async function onConfirm() {
    setBusy(true);
    try {
      setOutcome({ ok: true, message: answerText((await unsubscribeRequest(query)).message, t('auth.unsubscribe.done')) });
    } catch (err) {
      setOutcome({ ok: false, message: errorMessage(err, t('auth.unsubscribe.failed')) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <AuthLayout title={t('auth.unsubscribe.title')}>
      {outcome ? (
        <div className={`notice ${outcome.ok ? 'notice-success' : 'notice-error'}`} role={outcome.ok ? 'status' : 'alert'}>
          {outcome.message}
        </div>
      ) : (
        <>
          <p>{t('auth.unsubscribe.ask', { kind })}</p>
          <button type="button" className="btn btn-primary btn-block" onClick={() => void onConfirm()} disabled={busy} aria-busy={busy}>
            {busy ? t('auth.unsubscribe.stopping') : t('auth.unsubscribe.stop', { kind })}
          </button>
        </>
      )}
      <Link to="/settings/security" className="btn btn-secondary btn-block">
        {t('auth.unsubscribe.choose')}
      </Link>
    </AuthLayout>
  );
}
