// The cost of a key, line by line, against the buyer's credits.
import type { Schemas } from '../../../../worker/platform/api-client';
import { quote } from '../../../../worker/modules/catalog/schemas';
import { formatCredits } from '../../lib/format';
import { useT } from '../../lib/i18n';

export function PriceBreakdown({ product, days, credits }: { product: Schemas['Product']; days: number; credits: number }) {
  const t = useT();
  const q = quote(product, days);
  const after = credits - q.total;
  return (
    <dl className="breakdown" aria-label={t('purchase.breakdown')}>
      <div>
        <dt>{t('purchase.baseCost')}</dt>
        <dd>{t('common.credits', { credits: formatCredits(q.baseCost) })}</dd>
      </div>
      <div>
        <dt>{t('purchase.durationCost', { days, perDay: formatCredits(product.creditsPerDay) })}</dt>
        <dd>{t('common.credits', { credits: formatCredits(q.durationCost) })}</dd>
      </div>
      <div className="breakdown-total">
        <dt>{t('purchase.total')}</dt>
        <dd data-testid="purchase-total">{t('common.credits', { credits: formatCredits(q.total) })}</dd>
      </div>
      <div>
        <dt>{t('purchase.yourCredits')}</dt>
        <dd>{formatCredits(credits)}</dd>
      </div>
      <div className={after < 0 ? 'breakdown-short' : ''}>
        <dt>{t('purchase.afterPurchase')}</dt>
        <dd data-testid="credits-after">
          {after < 0
            ? t('purchase.creditsShort', { credits: formatCredits(-after) })
            : t('common.credits', { credits: formatCredits(after) })}
        </dd>
      </div>
    </dl>
  );
}
