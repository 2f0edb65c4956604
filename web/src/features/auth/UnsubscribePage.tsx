// /unsubscribe?u=…&k=…&t=…: the link at the end of a notice. It asks first (a link opened by a mail
// scanner must not turn anything off), then stops that kind of notice; the security page turns it
// back on. Mail clients that offer one-click unsubscribe POST to the API themselves (RFC 8058).
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { errorMessage } from '../../lib/api';
import { unsubscribeRequest } from './api';
import { AuthLayout } from './AuthLayout';

const KIND_NAMES: Record<string, string> = {
  expiry_reminder: 'expiry reminders',
  receipt: 'receipts',
  auto_renew_failed: 'failed auto-renewal notices',
  low_balance: 'low balance notices',
  new_device: 'new device notices',
};

export function UnsubscribePage() {
  const [query] = useState(() => new URLSearchParams(window.location.search));
  const kind = KIND_NAMES[query.get('k') ?? ''];
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; message: string } | null>(
    kind ? null : { ok: false, message: 'This unsubscribe link is incomplete. Open the link from the mail again.' },
  );

  async function onConfirm() {
    setBusy(true);
    try {
      setOutcome({ ok: true, message: (await unsubscribeRequest(query)).message });
    } catch (err) {
      setOutcome({ ok: false, message: errorMessage(err, 'This unsubscribe link did not work') });
    } finally {
      setBusy(false);
    }
  }

  return (
    <AuthLayout title="Stop these mails">
      {outcome ? (
        <div className={`notice ${outcome.ok ? 'notice-success' : 'notice-error'}`} role={outcome.ok ? 'status' : 'alert'}>
          {outcome.message}
        </div>
      ) : (
        <>
          <p>Stop getting {kind} by mail? You can turn them back on from your security page.</p>
          <button type="button" className="btn btn-primary btn-block" onClick={() => void onConfirm()} disabled={busy} aria-busy={busy}>
            {busy ? 'Stopping…' : `Stop ${kind}`}
          </button>
        </>
      )}
      <Link to="/settings/security" className="btn btn-secondary btn-block">
        Choose your mail on the security page
      </Link>
    </AuthLayout>
  );
}
