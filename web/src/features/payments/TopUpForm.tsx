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
import { translate, useT } from '../../lib/i18n';

function amountError(text: string, options: Schemas['PaymentOptions']): string | null {
  if (text.trim() === '') return translate('topUp.enterAmount');
  const cents = toCents(text.trim());
  if (cents === null) return translate('topUp.twoDecimals');
  if (cents < Math.round(options.minUsd * 100) || cents > Math.round(options.maxUsd * 100)) {
    return translate('topUp.between', { min: formatUsd(options.minUsd), max: formatUsd(options.maxUsd) });
  }
  return null;
}

export function TopUpForm({ options }: { options: Schemas['PaymentOptions'] }) {
  const [amount, setAmount] = useState(options.quickAmounts[0] !== undefined ? options.quickAmounts[0].toFixed(2) : '');
  const t = useT();
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
    <Card title={t('topUp.title')}>
      <form onSubmit={onSubmit} noValidate>
        <div className="quick-amounts" role="group" aria-label={t('exchange.quickAmounts')}>
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
          label={t('topUp.amount')}
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
          hint={t('topUp.hint', { min: formatUsd(options.minUsd), max: formatUsd(options.maxUsd) })}
        />
        {checkout.isError && (
          <div className="notice notice-error" role="alert">
            {errorMessage(checkout.error, t('topUp.startFailed'))}
          </div>
        )}
        <button type="submit" className="btn btn-primary" disabled={busy || (touched && error !== null)}>
          {busy ? t('topUp.opening') : cents === null ? t('topUp.pay') : t('topUp.payAmount', { usd: formatUsd(cents / 100) })}
        </button>
      </form>
    </Card>
  );
}
