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

export function ProductsPage() {
  const user = useCurrentUser();
  const products = useProducts();
  const [chosen, setChosen] = useState<Schemas['Product'] | null>(null);

  useEffect(() => {
    if (products.isError) toast.error('Failed to load products');
  }, [products.isError]);

  return (
    <div className="page">
      <header className="page-header">
        <h1>Available Products</h1>
        <p className="muted">Pick a product and a duration; keys are delivered at once.</p>
      </header>
      <BalancePanel />
      {products.isPending ? (
        <PageSpinner label="Loading products…" />
      ) : products.isError ? (
        <div className="notice notice-error" role="alert">
          Failed to load products.{' '}
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => void products.refetch()}>
            Try again
          </button>
        </div>
      ) : products.data.length === 0 ? (
        <EmptyState title="No Products Available" icon="📦">
          <p className="muted">There is nothing for sale right now. Please check back later.</p>
          <Link to="/dashboard">Back to the dashboard</Link>
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
