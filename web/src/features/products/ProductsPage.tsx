// /products: the active catalogue as cards, the buyer's balance, and the purchase dialog.
import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import type { Schemas } from '../../../../worker/platform/api-client';
import { EmptyState } from '../../components/ui/card';
import { PageSpinner } from '../../components/ui/spinner';
import { toast } from '../../components/ui/toast';
import { useCurrentUser } from '../../lib/session';
import { PurchaseModal } from '../../components/purchase/PurchaseModal';
import { useProducts } from '../../lib/products';
import { BalancePanel } from './BalancePanel';
import { ProductCard } from './ProductCard';
import { useT } from '../../lib/i18n';

export function ProductsPage() {
  const t = useT();
  const user = useCurrentUser();
  const products = useProducts();
  const [chosen, setChosen] = useState<Schemas['Product'] | null>(null);

  useEffect(() => {
    if (products.isError) toast.error(t('products.loadFailedToast'));
  }, [products.isError, t]);

  return (
    <div className="page">
      <header className="page-header">
        <h1>{t('products.title')}</h1>
        <p className="muted">{t('products.subtitle')}</p>
      </header>
      <BalancePanel />
      {products.isPending ? (
        <PageSpinner label={t('purchase.loadingProducts')} />
      ) : products.isError ? (
        <div className="notice notice-error" role="alert">
          {t('products.loadFailed')}{' '}
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => void products.refetch()}>
            {t('common.tryAgain')}
          </button>
        </div>
      ) : products.data.length === 0 ? (
        <EmptyState title={t('purchase.noProductsTitle')} icon="📦">
          <p className="muted">{t('products.emptyBody')}</p>
          <Link to="/dashboard">{t('products.backToDashboard')}</Link>
        </EmptyState>
      ) : (
        <div className="product-grid">
          {products.data.map((p) => (
            <ProductCard key={p._id} product={p} credits={user ? user.credits : null} onPurchase={setChosen} />
          ))}
        </div>
      )}
      {chosen && <PurchaseModal key={chosen._id} product={chosen} onClose={() => setChosen(null)} />}
    </div>
  );
}
