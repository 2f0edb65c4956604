// Back from Stripe Checkout: wait for the webhook's credit (polling the payment), then say what
// happened; or say the payment was cancelled.
import { useEffect, useState } from 'react';
import { Spinner } from '../../components/ui/spinner';
import { errorMessage } from '../../lib/api';
import { formatUsd } from '../../lib/format';
import { PAYMENT_WAIT_MS, usePaymentStatus } from './api';

export function CheckoutCancelled({ onDismiss }: { onDismiss: () => void }) {
  return (
    <div className="notice notice-info" role="status">
      Payment cancelled. Nothing was charged.{' '}
      <button type="button" className="link-button" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}

export function CheckoutReturn({ sessionId, onDismiss }: { sessionId: string; onDismiss: () => void }) {
  const [waitedOut, setWaitedOut] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setWaitedOut(true), PAYMENT_WAIT_MS);
    return () => clearTimeout(timer);
  }, []);
  const status = usePaymentStatus(sessionId, !waitedOut);
  const dismiss = (
    <button type="button" className="link-button" onClick={onDismiss}>
      Dismiss
    </button>
  );

  if (status.isError) {
    return (
      <div className="notice notice-error" role="alert">
        {errorMessage(status.error, 'Could not check this payment.')} {dismiss}
      </div>
    );
  }
  const payment = status.data?.payment;
  if (!payment || payment.status === 'pending') {
    return (
      <div className="notice notice-info" role="status" aria-live="polite">
        {waitedOut ? (
          <>
            Still waiting for the card payment to be confirmed. It is credited as soon as Stripe confirms it; this list shows it then.{' '}
            {dismiss}
          </>
        ) : (
          <>
            <Spinner size="sm" label="Checking" /> Waiting for the card payment to be confirmed…
          </>
        )}
      </div>
    );
  }
  if (payment.status === 'paid' || payment.status === 'refunded') {
    return (
      <div className="notice notice-success" role="status" aria-live="polite">
        {formatUsd(payment.amount)} was added to your balance. Your USD balance is now{' '}
        <strong data-testid="topup-new-balance">{formatUsd(status.data!.balance)}</strong>. {dismiss}
      </div>
    );
  }
  return (
    <div className="notice notice-warning" role="status" aria-live="polite">
      {payment.status === 'expired'
        ? 'This checkout expired before it was paid. Nothing was charged.'
        : 'The payment did not go through. Nothing was added to your balance.'}{' '}
      {dismiss}
    </div>
  );
}
