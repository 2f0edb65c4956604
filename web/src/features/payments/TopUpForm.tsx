// Choose an amount (a quick amount or your own, within the owner's bounds) and pay it on Stripe
// Checkout. The server checks the same bounds; this form only says so sooner.
import { useState, type FormEvent } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { toCents } from '../../../../worker/modules/billing/schemas/exchange';
import { Card } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { errorMessage } from '../../lib/api';
import { formatUsd } from '../../lib/format';
import { useIdempotencyKey } from '../../lib/idempotency';
import { useStartCheckout } from './api';

function amountError(text: string, options: Schemas['PaymentOptions']): string | null {
  if (text.trim() === '') return 'Enter an amount';
  const cents = toCents(text.trim());
  if (cents === null) return 'Enter a USD amount with at most two decimals';
  if (cents < Math.round(options.minUsd * 100) || cents > Math.round(options.maxUsd * 100)) {
    return `A top-up must be between ${formatUsd(options.minUsd)} and ${formatUsd(options.maxUsd)}`;
  }
  return null;
}

export function TopUpForm({ options }: { options: Schemas['PaymentOptions'] }) {
  const [amount, setAmount] = useState(options.quickAmounts[0] !== undefined ? options.quickAmounts[0].toFixed(2) : '');
  const [touched, setTouched] = useState(false);
  const checkout = useStartCheckout();
  const idempotency = useIdempotencyKey();
  const error = amountError(amount, options);
  const cents = error ? null : toCents(amount.trim());

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    setTouched(true);
    if (cents === null) return;
    checkout.mutate(
      { usdAmount: cents / 100, idempotencyKey: idempotency.keyFor(String(cents)) },
      // Off to Stripe Checkout; it sends the customer back to /add-balance.
      { onSuccess: (session) => window.location.assign(session.url) },
    );
  }

  const busy = checkout.isPending || checkout.isSuccess;
  return (
    <Card title="Add USD by card">
      <form onSubmit={onSubmit} noValidate>
        <div className="quick-amounts" role="group" aria-label="Quick amounts">
          {options.quickAmounts.map((usd) => (
            <button
              key={usd}
              type="button"
              className="btn btn-secondary btn-sm"
              aria-pressed={cents === Math.round(usd * 100)}
              disabled={busy}
              onClick={() => setAmount(usd.toFixed(2))}
            >
              {formatUsd(usd)}
            </button>
          ))}
        </div>
        <Field
          label="Amount (USD)"
          type="number"
          inputMode="decimal"
          min={options.minUsd}
          max={options.maxUsd}
          step={0.01}
          value={amount}
          disabled={busy}
          onChange={(e) => {
            setAmount(e.target.value);
            setTouched(true);
          }}
          error={touched ? error : null}
          hint={`From ${formatUsd(options.minUsd)} to ${formatUsd(options.maxUsd)}. You pay on Stripe's secure checkout page.`}
        />
        {checkout.isError && (
          <div className="notice notice-error" role="alert">
            {errorMessage(checkout.error, 'Could not start the payment. Please try again.')}
          </div>
        )}
        <button type="submit" className="btn btn-primary" disabled={busy || (touched && error !== null)}>
          {busy ? 'Opening checkout…' : `Pay ${cents === null ? '' : formatUsd(cents / 100)}`.trim()}
        </button>
      </form>
    </Card>
  );
}
