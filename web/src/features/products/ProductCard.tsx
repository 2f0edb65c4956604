// One product in the catalogue: type, tag, day range, features, costs, and the
// sample costs for 1, 7, 30 and 90 days against the buyer's credits.
import { Link } from 'react-router-dom';
import type { Schemas } from '../../../../worker/platform/api-client';
import { cheapestPrice, isOfferedDuration, quote } from '../../../../worker/modules/catalog/schemas';
import { PRODUCT_CARD_SAMPLE_DAYS, USER_CARD_FEATURES } from '../../lib/constants';
import { formatCredits, formatDays } from '../../lib/format';
import { FeatureList } from '../../components/products/FeatureList';
import { ProductTypeBadge } from '../../components/products/ProductTypeBadge';
import { useT } from '../../lib/i18n';

type Product = Schemas['Product'];

type Props = { product: Product; credits: number | null; onPurchase: (product: Product) => void };

export function ProductCard({ product, credits, onPurchase }: Props) {
  // A buyer who cannot pay for the shortest key cannot buy any.
  const t = useT();
  const affordable = credits !== null && credits >= cheapestPrice(product);
  const headingId = `product-${product._id}`;

  return (
    <article className="product-card card" aria-labelledby={headingId}>
      <header className="product-card-header">
        <h2 id={headingId} className="product-name">
          {product.name}
        </h2>
        <ProductTypeBadge type={product.productType} />
      </header>
      <div className="product-meta">
        <span className="key-tag" title={t('products.keyTag')}>
          {product.keyTag}
        </span>
        <span className="muted">{t('products.dayRange', { min: product.minDays, max: product.maxDays })}</span>
      </div>
      <p className="product-description">{product.description}</p>
      <FeatureList features={product.features} shown={USER_CARD_FEATURES} />
      <dl className="product-costs">
        <div>
          <dt>{t('purchase.baseCost')}</dt>
          <dd>{t('common.credits', { credits: formatCredits(product.baseCreditCost) })}</dd>
        </div>
        <div>
          <dt>{t('products.perDay')}</dt>
          <dd>{t('common.credits', { credits: formatCredits(product.creditsPerDay) })}</dd>
        </div>
      </dl>
      <ul className="sample-costs" aria-label={t('products.sampleCosts')}>
        {PRODUCT_CARD_SAMPLE_DAYS.map((days) => {
          const label = formatDays(days);
          if (!isOfferedDuration(product, days)) {
            return (
              <li key={days} className="sample-cost sample-na" title={t('products.notSoldFor', { duration: label })}>
                <span>{label}</span>
                <span>{t('purchase.notApplicable')}</span>
              </li>
            );
          }
          const cost = quote(product, days).total;
          const tooDear = credits !== null && credits < cost;
          return (
            <li
              key={days}
              className={`sample-cost ${tooDear ? 'sample-unaffordable' : ''}`}
              title={tooDear ? t('products.tooDear') : undefined}
            >
              <span>{label}</span>
              <span>
                {tooDear && <span aria-label={t('products.unaffordable')}>✗ </span>}
                {formatCredits(cost)}
              </span>
            </li>
          );
        })}
      </ul>
      <div className="product-actions">
        {credits === null ? (
          <Link to="/login" className="btn btn-primary btn-block">
            {t('products.loginToPurchase')}
          </Link>
        ) : (
          <button type="button" className="btn btn-primary btn-block" disabled={!affordable} onClick={() => onPurchase(product)}>
            {affordable ? t('products.purchaseLicense') : t('products.insufficient')}
          </button>
        )}
      </div>
    </article>
  );
}
