// /exchange: USD to credits at the owner's rate.
import { Link } from 'react-router-dom';
import {
  creditsForCents,
  exchangeSchema,
  INSUFFICIENT_USD_MESSAGE,
  INVALID_AMOUNT_MESSAGE,
  toCents,
} from '../../../../worker/modules/billing/schemas/exchange';
import { Card, StatCard } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { Icon } from '../../components/ui/icons';
import { toast } from '../../components/ui/toast';
import { ApiError, errorMessage } from '../../lib/api';
import { QUICK_EXCHANGE_AMOUNTS } from '../../lib/constants';
import { formatCredits, formatUsd } from '../../lib/format';
import { schemaErrors, useForm, type FieldErrors } from '../../lib/form';
import { useIdempotencyKey } from '../../lib/idempotency';
import { useCurrentUser } from '../../lib/session';
import { useExchange, useExchangeRate } from './api';

const POPULAR_AMOUNTS = [1, 5, 10, 25, 50, 100];

type Form = { usdAmount: string };

/** The API's rule for the amount (exchangeSchema), and the balance the server would refuse to exceed. */
export function validateExchange(values: Form, balanceCents: number): FieldErrors<Form> {
  // The API reads plain digits only; spaces a person typed around them are the form's to drop.
  const errors = schemaErrors<Form>(exchangeSchema, { usdAmount: values.usdAmount.trim() });
  const cents = toCents(values.usdAmount.trim());
  if (!errors.usdAmount && cents !== null && cents > balanceCents) errors.usdAmount = INSUFFICIENT_USD_MESSAGE;
  return errors;
}

export function ExchangePage() {
  const user = useCurrentUser()!;
  const { rate, refetch: refetchRate } = useExchangeRate();
  const exchange = useExchange();
  const attempt = useIdempotencyKey();
  const balanceCents = Math.round(user.balance * 100);
  const form = useForm<Form>({
    initial: { usdAmount: '' },
    validate: (values) => validateExchange(values, balanceCents),
    submit: async (values) => {
      const cents = toCents(values.usdAmount.trim())!;
      const promised = creditsForCents(cents, rate);
      const usdAmount = cents / 100;
      const answer = await exchange.mutateAsync({
        usdAmount,
        creditsToAdd: promised,
        idempotencyKey: attempt.keyFor(`${cents}:${promised}`),
      });
      attempt.done();
      const received = answer.balances.credits - user.credits;
      toast.success(`Exchanged ${formatUsd(usdAmount)} for ${formatCredits(received > 0 ? received : promised)} credits`);
    },
    onError: (err) => {
      // The rate fell since the page loaded: show the new one before anything else is tried.
      if (err instanceof ApiError && err.code === 'RATE_CHANGED') void refetchRate();
      toast.error(errorMessage(err, 'Exchange failed'));
      return null;
    },
    resetOnSuccess: true,
  });

  const amount = form.values.usdAmount;
  const cents = amount.trim() === '' ? null : toCents(amount.trim());
  const valid = cents !== null && cents > 0;
  const credits = valid ? creditsForCents(cents, rate) : 0;
  const overBalance = valid && cents > balanceCents;
  const canSubmit = valid && credits > 0 && !overBalance && !exchange.isPending;

  const live = valid ? (overBalance ? INSUFFICIENT_USD_MESSAGE : null) : amount.trim() !== '' ? INVALID_AMOUNT_MESSAGE : null;

  return (
    <div className="page">
      <header className="page-header">
        <h1>Exchange USD for Credits</h1>
        <p className="muted">Credits buy license keys. No fees: you receive every credit shown.</p>
      </header>
      <section className="stat-grid" aria-label="Rate and balances">
        <StatCard
          label="Current rate"
          value={
            <span className="rate-value" data-testid="exchange-rate">
              1 USD = {formatCredits(rate)} credits
            </span>
          }
          tone="purple"
          icon={<Icon name="swap" />}
        />
        <StatCard
          label="USD balance"
          value={<span data-testid="exchange-usd">{formatUsd(user.balance)}</span>}
          tone="green"
          icon={<Icon name="dollar" />}
        />
        <StatCard
          label="Credits"
          value={<span data-testid="exchange-credits">{formatCredits(user.credits)}</span>}
          tone="blue"
          icon={<Icon name="key" />}
        />
      </section>
      <div className="exchange-layout">
        <Card title="Exchange">
          <form onSubmit={form.onSubmit} noValidate>
            <Field
              label="USD amount"
              type="number"
              inputMode="decimal"
              min={0.01}
              step={0.01}
              max={user.balance}
              placeholder="0.00"
              {...form.field('usdAmount')}
              error={form.errors.usdAmount ?? live}
              hint={`Up to ${formatUsd(user.balance)}`}
            />
            <div className="quick-amounts" role="group" aria-label="Quick amounts">
              {QUICK_EXCHANGE_AMOUNTS.map((usd) => (
                <button
                  key={usd}
                  type="button"
                  className="btn btn-secondary btn-sm"
                  disabled={usd * 100 > balanceCents || exchange.isPending}
                  onClick={() => form.set('usdAmount', usd.toFixed(2))}
                >
                  ${usd}
                </button>
              ))}
            </div>
            <Field label="Credits to receive" type="text" readOnly value={formatCredits(credits)} hint="Rounded down to whole credits" />
            <dl className="breakdown" aria-label="Exchange summary">
              <div>
                <dt>USD to exchange</dt>
                <dd>{formatUsd(valid ? cents / 100 : 0)}</dd>
              </div>
              <div>
                <dt>Credits to receive</dt>
                <dd>{formatCredits(credits)}</dd>
              </div>
              <div>
                <dt>New USD balance</dt>
                <dd data-testid="new-usd">{formatUsd((balanceCents - (valid && !overBalance ? cents : 0)) / 100)}</dd>
              </div>
              <div>
                <dt>New credits balance</dt>
                <dd data-testid="new-credits">{formatCredits(user.credits + (overBalance ? 0 : credits))}</dd>
              </div>
            </dl>
            <button type="submit" className="btn btn-primary btn-block" disabled={!canSubmit}>
              {exchange.isPending ? 'Exchanging…' : 'Exchange'}
            </button>
          </form>
        </Card>
        <div className="exchange-side">
          <Card title="Popular exchanges">
            <div className="table-wrap">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">USD</th>
                    <th scope="col">Credits</th>
                  </tr>
                </thead>
                <tbody>
                  {POPULAR_AMOUNTS.map((usd) => (
                    <tr key={usd}>
                      <td>{formatUsd(usd)}</td>
                      <td>{formatCredits(creditsForCents(usd * 100, rate))}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </Card>
          <Card title="Good to know">
            <ul className="notes">
              <li>Credits cannot be converted back to USD.</li>
              <li>Exchanges are final and irreversible.</li>
              <li>
                The exchange rate may change. If it changes before you confirm, nothing is exchanged and you are shown the new figure.
              </li>
              <li>No fees are charged.</li>
            </ul>
            <p className="muted">
              Need more USD? See <Link to="/add-balance">how to add balance</Link>.
            </p>
          </Card>
        </div>
      </div>
    </div>
  );
}
