// The cost of a key, line by line, against the buyer's credits.
import type { Schemas } from '../../../../worker/platform/api-client';
import { quote } from '../../../../worker/modules/catalog/schemas';
import { formatCredits } from '../../lib/format';

export function PriceBreakdown({ product, days, credits }: { product: Schemas['Product']; days: number; credits: number }) {
  const q = quote(product, days);
  const after = credits - q.total;
  return (
    <dl className="breakdown" aria-label="Cost breakdown">
      <div>
        <dt>Base cost</dt>
        <dd>{formatCredits(q.baseCost)} credits</dd>
      </div>
      <div>
        <dt>
          Duration ({days} {days === 1 ? 'day' : 'days'} × {formatCredits(product.creditsPerDay)})
        </dt>
        <dd>{formatCredits(q.durationCost)} credits</dd>
      </div>
      <div className="breakdown-total">
        <dt>Total</dt>
        <dd data-testid="purchase-total">{formatCredits(q.total)} credits</dd>
      </div>
      <div>
        <dt>Your credits</dt>
        <dd>{formatCredits(credits)}</dd>
      </div>
      <div className={after < 0 ? 'breakdown-short' : ''}>
        <dt>After purchase</dt>
        <dd data-testid="credits-after">{after < 0 ? `${formatCredits(-after)} credits short` : `${formatCredits(after)} credits`}</dd>
      </div>
    </dl>
  );
}
