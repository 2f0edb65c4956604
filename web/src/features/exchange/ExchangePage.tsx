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
import { formatCredits, formatNumber, formatUsd } from '../../lib/format';
import { schemaErrors, useForm, type FieldErrors } from '../../lib/form';
import { useIdempotencyKey } from '../../lib/idempotency';
import { useCurrentUser } from '../../lib/session';
import { useExchange, useExchangeRate } from './api';
import { FormattedMessage } from 'react-intl';
import { translate, useT } from '../../lib/i18n';

const POPULAR_AMOUNTS = [1, 5, 10, 25, 50, 100];

/** The amount rules' messages (the API's English) in the language in force; any other as it is. */
function amountMessage(message: string | null | undefined): string | null {
  if (!message) return null;
  if (message === INVALID_AMOUNT_MESSAGE) return translate('exchange.invalidAmount');
  if (message === INSUFFICIENT_USD_MESSAGE) return translate('exchange.insufficientUsd');
  return message;
}

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
  const t = useT();
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
      toast.success(t('exchange.done', { usd: formatUsd(usdAmount), credits: formatCredits(received > 0 ? received : promised) }));
    },
    onError: (err) => {
      // The rate fell since the page loaded: show the new one before anything else is tried.
      if (err instanceof ApiError && err.code === 'RATE_CHANGED') void refetchRate();
      toast.error(errorMessage(err, t('exchange.failed')));
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
        <h1>{t('exchange.title')}</h1>
        <p className="muted">{t('exchange.subtitle')}</p>
      </header>
      <section className="stat-grid" aria-label={t('exchange.rateAndBalances')}>
        <StatCard
          label={t('exchange.currentRate')}
          value={
            <span className="rate-value" data-testid="exchange-rate">
              {t('exchange.rate', { credits: formatCredits(rate) })}
            </span>
          }
          tone="purple"
          icon={<Icon name="swap" />}
        />
        <StatCard
          label={t('shell.usdBalance')}
          value={<span data-testid="exchange-usd">{formatUsd(user.balance)}</span>}
          tone="green"
          icon={<Icon name="dollar" />}
        />
        <StatCard
          label={t('shell.credits')}
          value={<span data-testid="exchange-credits">{formatCredits(user.credits)}</span>}
          tone="blue"
          icon={<Icon name="key" />}
        />
      </section>
      <div className="exchange-layout">
        <Card title={t('exchange.card')}>
          <form onSubmit={form.onSubmit} noValidate>
            <Field
              label={t('exchange.usdAmount')}
              type="number"
              inputMode="decimal"
              min={0.01}
              step={0.01}
              max={user.balance}
              placeholder="0.00"
              {...form.field('usdAmount')}
              error={amountMessage(form.errors.usdAmount ?? live)}
              hint={t('exchange.upTo', { usd: formatUsd(user.balance) })}
            />
            <div className="quick-amounts" role="group" aria-label={t('exchange.quickAmounts')}>
              {QUICK_EXCHANGE_AMOUNTS.map((usd) => (
                <button
                  key={usd}
                  type="button"
                  className="btn btn-secondary btn-sm"
                  disabled={usd * 100 > balanceCents || exchange.isPending}
                  onClick={() => form.set('usdAmount', usd.toFixed(2))}
                >
                  {formatNumber(usd, { style: 'currency', currency: 'USD', minimumFractionDigits: 0, maximumFractionDigits: 2 })}
                </button>
              ))}
            </div>
            <Field
              label={t('exchange.creditsToReceive')}
              type="text"
              readOnly
              value={formatCredits(credits)}
              hint={t('exchange.roundedDown')}
            />
            <dl className="breakdown" aria-label={t('exchange.summary')}>
              <div>
                <dt>{t('exchange.usdToExchange')}</dt>
                <dd>{formatUsd(valid ? cents / 100 : 0)}</dd>
              </div>
              <div>
                <dt>{t('exchange.creditsToReceive')}</dt>
                <dd>{formatCredits(credits)}</dd>
              </div>
              <div>
                <dt>{t('exchange.newUsd')}</dt>
                <dd data-testid="new-usd">{formatUsd((balanceCents - (valid && !overBalance ? cents : 0)) / 100)}</dd>
              </div>
              <div>
                <dt>{t('exchange.newCredits')}</dt>
                <dd data-testid="new-credits">{formatCredits(user.credits + (overBalance ? 0 : credits))}</dd>
              </div>
            </dl>
            <button type="submit" className="btn btn-primary btn-block" disabled={!canSubmit}>
              {exchange.isPending ? t('exchange.exchanging') : t('exchange.submit')}
            </button>
          </form>
        </Card>
        <div className="exchange-side">
          <Card title={t('exchange.popular')}>
            <div className="table-wrap">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">{t('exchange.usd')}</th>
                    <th scope="col">{t('shell.credits')}</th>
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
          <Card title={t('exchange.goodToKnow')}>
            <ul className="notes">
              <li>{t('exchange.note1')}</li>
              <li>{t('exchange.note2')}</li>
              <li>{t('exchange.note3')}</li>
              <li>{t('exchange.note4')}</li>
            </ul>
            <p className="muted">
              <FormattedMessage id="exchange.needMore" values={{ link: (chunks) => <Link to="/add-balance">{chunks}</Link> }} />
            </p>
          </Card>
        </div>
      </div>
    </div>
  );
}
