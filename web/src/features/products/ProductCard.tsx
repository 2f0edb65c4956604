// One product in the catalogue: type, tag, day range, features, costs, and the
// sample costs for 1, 7, 30 and 90 days against the buyer's credits.
import { Link } from 'react-router-dom';
import type { Schemas } from '../../../../worker/platform/api-client';
import { cheapestPrice, isOfferedDuration, quote } from '../../../../worker/modules/catalog/schemas';
import { PRODUCT_CARD_SAMPLE_DAYS, USER_CARD_FEATURES } from '../../lib/constants';
import { formatCredits } from '../../lib/format';
import { FeatureList } from '../../components/products/FeatureList';
import { ProductTypeBadge } from '../../components/products/ProductTypeBadge';

type Product = Schemas['Product'];

type Props = { product: Product; credits: number | null; onPurchase: (product: Product) => void };

export function ProductCard({ product, credits, onPurchase }: Props) {
  // A buyer who cannot pay for the shortest key cannot buy any.
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
        <span className="key-tag" title="Key tag">
          {product.keyTag}
        </span>
        <span className="muted">
          {product.minDays}-{product.maxDays} days
        </span>
      </div>
      <p className="product-description">{product.description}</p>
      <FeatureList features={product.features} shown={USER_CARD_FEATURES} />
      <dl className="product-costs">
        <div>
          <dt>Base cost</dt>
          <dd>{formatCredits(product.baseCreditCost)} credits</dd>
        </div>
        <div>
          <dt>Per day</dt>
          <dd>{formatCredits(product.creditsPerDay)} credits</dd>
        </div>
      </dl>
      <ul className="sample-costs" aria-label="Sample costs">
        {PRODUCT_CARD_SAMPLE_DAYS.map((days) => {
          const label = `${days} ${days === 1 ? 'day' : 'days'}`;
          if (!isOfferedDuration(product, days)) {
            return (
              <li key={days} className="sample-cost sample-na" title={`Not sold for ${label}`}>
                <span>{label}</span>
                <span>n/a</span>
              </li>
            );
          }
          const cost = quote(product, days).total;
          const tooDear = credits !== null && credits < cost;
          return (
            <li
              key={days}
              className={`sample-cost ${tooDear ? 'sample-unaffordable' : ''}`}
              title={tooDear ? 'More than your credits' : undefined}
            >
              <span>{label}</span>
              <span>
                {tooDear && <span aria-label="unaffordable">✗ </span>}
                {formatCredits(cost)}
              </span>
            </li>
          );
        })}
      </ul>
      <div className="product-actions">
        {credits === null ? (
          <Link to="/login" className="btn btn-primary btn-block">
            Login to Purchase
          </Link>
        ) : (
          <button type="button" className="btn btn-primary btn-block" disabled={!affordable} onClick={() => onPurchase(product)}>
            {affordable ? 'Purchase License' : 'Insufficient Credits'}
          </button>
        )}
      </div>
    </article>
  );
}
