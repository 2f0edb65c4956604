// /purchase: choose a product and a duration, buy, and get the key on a success card.
import { useEffect, useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { isOfferedDuration, quote } from '../../../../worker/modules/catalog/schemas';
import type { Schemas } from '../../../../worker/platform/api-client';
import { Card, EmptyState } from '../../components/ui/card';
import { Spinner } from '../../components/ui/spinner';
import { toast } from '../../components/ui/toast';
import { SAMPLE_DAYS, TOAST_PURCHASE_MS } from '../../lib/constants';
import { formatCredits, formatDays, formatNumber } from '../../lib/format';
import { useCurrentUser } from '../../lib/session';
import { DurationPicker } from '../../components/purchase/DurationPicker';
import { PriceBreakdown } from '../../components/purchase/PriceBreakdown';
import { ProductOptions } from '../../components/purchase/ProductOptions';
import { ReceiptCard } from '../../components/purchase/ReceiptCard';
import { useProducts } from '../../lib/products';
import { purchaseErrorMessage, useBuyKey } from '../../lib/purchase';
import { asyncHandler } from '../../lib/async-handler';
import { FormattedMessage } from 'react-intl';
import { useT } from '../../lib/i18n';

type PurchaseReceipt = Schemas['PurchaseReceipt'];

export function PurchasePage() {
  const t = useT();
  const user = useCurrentUser()!;
  const products = useProducts();
  const purchase = useBuyKey();
  const selectId = useId();
  const [productId, setProductId] = useState('');
  const [days, setDays] = useState(1);
  const [receipt, setReceipt] = useState<PurchaseReceipt | null>(null);

  useEffect(() => {
    // The spec has this list's failures logged only; the page also says so, rather than look empty.
    if (products.isError) console.error('Failed to load products', products.error);
  }, [products.isError, products.error]);

  const product = products.data?.find((p) => p._id === productId) ?? null;
  const total = product ? quote(product, days).total : 0;
  const short = product !== null && user.credits < total;

  function choose(id: string) {
    setProductId(id);
    const next = products.data?.find((p) => p._id === id);
    // Choosing a product sets the duration to its minimum.
    if (next) setDays(next.minDays);
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!product || short || purchase.isPending) return;
    try {
      const answer = await purchase.buy(product._id, days);
      setReceipt(answer.licenseKey);
      setDays(product.minDays);
      toast.success(t('purchase.success'), TOAST_PURCHASE_MS);
    } catch (err) {
      toast.error(purchaseErrorMessage(err, t('purchase.pageFailed')), TOAST_PURCHASE_MS);
    }
  }

  return (
    <div className="page">
      <header className="page-header">
        <h1>{t('purchase.title')}</h1>
        <p className="muted">{t('purchase.subtitle', { credits: formatCredits(user.credits) })}</p>
      </header>
      <div className="purchase-layout">
        <div className="purchase-main">
          {receipt && (
            <ReceiptCard
              receipt={receipt}
              title={t('purchase.successTitle')}
              note={<FormattedMessage id="purchase.savedIn" values={{ link: (chunks) => <Link to="/my-keys">{chunks}</Link> }} />}
              dismissLabel={t('purchase.buyAnother')}
              onDismiss={() => setReceipt(null)}
            />
          )}
          <Card title={t('purchase.newPurchase')}>
            {products.isPending ? (
              <Spinner label={t('purchase.loadingProducts')} />
            ) : (
              <form onSubmit={asyncHandler(onSubmit)} noValidate>
                <div className="field">
                  <label htmlFor={selectId}>{t('receipt.product')}</label>
                  <select
                    id={selectId}
                    value={productId}
                    onChange={(e) => choose(e.target.value)}
                    disabled={purchase.isPending || !products.data?.length}
                  >
                    <option value="">{products.data?.length ? t('purchase.selectProduct') : t('purchase.noProducts')}</option>
                    <ProductOptions products={products.data ?? []} />
                  </select>
                </div>
                {product && (
                  <>
                    <DurationPicker product={product} days={days} onChange={setDays} disabled={purchase.isPending} />
                    <h3 className="section-title">{t('purchase.summary')}</h3>
                    <p className="purchase-product">
                      <strong>{product.name}</strong> <span className="key-tag">{product.keyTag}</span>{' '}
                      {t('purchase.forDuration', { duration: formatDays(days) })}
                    </p>
                    <PriceBreakdown product={product} days={days} credits={user.credits} />
                    {short && (
                      <div className="notice notice-warning" role="status">
                        {t('purchase.needMoreShort', { credits: formatCredits(total - user.credits) })}{' '}
                        <Link to="/exchange">{t('purchase.exchangeLink')}</Link>
                      </div>
                    )}
                  </>
                )}
                <button type="submit" className="btn btn-primary btn-block" disabled={!product || short || purchase.isPending}>
                  {purchase.isPending
                    ? t('purchase.submitting')
                    : product
                      ? t('purchase.purchaseFor', { credits: formatCredits(total) })
                      : t('purchase.purchaseKey')}
                </button>
              </form>
            )}
          </Card>
        </div>
        <aside className="purchase-side" aria-labelledby="side-products">
          <Card title={<span id="side-products">{t('purchase.available')}</span>}>
            {products.isError ? (
              <div className="notice notice-error" role="alert">
                {t('purchase.productsFailed')}{' '}
                <button type="button" className="btn btn-secondary btn-sm" onClick={() => void products.refetch()}>
                  {t('common.tryAgain')}
                </button>
              </div>
            ) : products.data?.length === 0 ? (
              <EmptyState title={t('purchase.noProductsTitle')} />
            ) : (
              <ul className="side-products">
                {products.data?.map((p) => (
                  <li key={p._id} className={p._id === productId ? 'selected' : ''}>
                    <button
                      type="button"
                      className="side-product"
                      onClick={() => choose(p._id)}
                      aria-pressed={p._id === productId}
                      disabled={purchase.isPending}
                    >
                      <span className="side-product-name">
                        {p.name} <span className="key-tag">{p.keyTag}</span>
                      </span>
                      <span className="side-product-costs">
                        {SAMPLE_DAYS.map((d) => (
                          <span key={d}>
                            {formatNumber(d, { style: 'unit', unit: 'day', unitDisplay: 'narrow' })}:{' '}
                            {isOfferedDuration(p, d) ? formatCredits(quote(p, d).total) : t('purchase.notApplicable')}
                          </span>
                        ))}
                      </span>
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </Card>
        </aside>
      </div>
    </div>
  );
}
