// Back from Stripe Checkout: wait for the webhook's credit (polling the payment), then say what
// happened; or say the payment was cancelled.
import { useEffect, useState } from 'react';
import { Spinner } from '../../components/ui/spinner';
import { errorMessage } from '../../lib/api';
import { formatUsd } from '../../lib/format';
import { PAYMENT_WAIT_MS, usePaymentStatus } from './api';
import { FormattedMessage } from 'react-intl';
import { useT } from '../../lib/i18n';

export function CheckoutCancelled({ onDismiss }: { onDismiss: () => void }) {
  const t = useT();
  return (
    <div className="notice notice-info" role="status">
      {t('checkout.cancelled')}{' '}
      <button type="button" className="link-button" onClick={onDismiss}>
        {t('checkout.dismiss')}
      </button>
    </div>
  );
}

export function CheckoutReturn({ sessionId, onDismiss }: { sessionId: string; onDismiss: () => void }) {
  const t = useT();
  const [waitedOut, setWaitedOut] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setWaitedOut(true), PAYMENT_WAIT_MS);
    return () => clearTimeout(timer);
  }, []);
  const status = usePaymentStatus(sessionId, !waitedOut);
  const dismiss = (
    <button type="button" className="link-button" onClick={onDismiss}>
      {t('checkout.dismiss')}
    </button>
  );

  if (status.isError) {
    return (
      <div className="notice notice-error" role="alert">
        {errorMessage(status.error, t('checkout.checkFailed'))} {dismiss}
      </div>
    );
  }
  const payment = status.data?.payment;
  if (!payment || payment.status === 'pending') {
    return (
      <div className="notice notice-info" role="status" aria-live="polite">
        {waitedOut ? (
          <>
            {t('checkout.stillWaiting')} {dismiss}
          </>
        ) : (
          <>
            <Spinner size="sm" label={t('checkout.checking')} /> {t('checkout.waiting')}
          </>
        )}
      </div>
    );
  }
  if (payment.status === 'paid' || payment.status === 'refunded') {
    return (
      <div className="notice notice-success" role="status" aria-live="polite">
        <FormattedMessage
          id="checkout.added"
          values={{
            amount: formatUsd(payment.amount),
            balance: formatUsd(status.data!.balance),
            strong: (chunks) => <strong data-testid="topup-new-balance">{chunks}</strong>,
          }}
        />{' '}
        {dismiss}
      </div>
    );
  }
  return (
    <div className="notice notice-warning" role="status" aria-live="polite">
      {payment.status === 'expired' ? t('checkout.expired') : t('checkout.failed')} {dismiss}
    </div>
  );
}
