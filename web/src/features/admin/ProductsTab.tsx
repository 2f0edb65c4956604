// The Products tab (Admin Product Management): search by name or tag, type and
// status filters, product cards with their stats, and the create, edit and delete dialogs.
import { useEffect, useMemo, useState } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { Badge } from '../../components/ui/badge';
import { EmptyState } from '../../components/ui/card';
import { Icon } from '../../components/ui/icons';
import { Spinner } from '../../components/ui/spinner';
import { toast } from '../../components/ui/toast';
import { ADMIN_CARD_FEATURES } from '../../lib/constants';
import { formatCredits } from '../../lib/format';
import { FeatureList } from '../../components/products/FeatureList';
import { ProductTypeBadge, ProductTypeOptions } from '../../components/products/ProductTypeBadge';
import { useAllProducts } from './keys-api';
import { DeleteProductModal, ProductFormModal } from './ProductModals';

type Product = Schemas['Product'];
type ProductType = Schemas['ProductType'];

type Dialog = { kind: 'create' } | { kind: 'edit' | 'delete'; product: Product } | null;

function Stat({ label, value }: { label: string; value: number }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{formatCredits(value)}</dd>
    </div>
  );
}

function ProductCard({ product: p, open }: { product: Product; open: (d: Dialog) => void }) {
  return (
    <li className="card product-card admin-product-card">
      <div className="product-card-header">
        <div>
          <h3 className="product-name">{p.name}</h3>
          <div className="product-meta">
            <span className="key-tag" title="Key tag">
              {p.keyTag}
            </span>
            <span className="muted">
              {p.minDays}-{p.maxDays} days
            </span>
          </div>
        </div>
        <div className="user-card-badges">
          <ProductTypeBadge type={p.productType} />
          <Badge tone={p.isActive ? 'green' : 'gray'}>{p.isActive ? 'Active' : 'Inactive'}</Badge>
        </div>
      </div>
      <p className="product-description">{p.description}</p>
      <FeatureList features={p.features} shown={ADMIN_CARD_FEATURES} />
      <dl className="product-costs">
        <div>
          <dt>Base cost</dt>
          <dd>{formatCredits(p.baseCreditCost)} credits</dd>
        </div>
        <div>
          <dt>Per day</dt>
          <dd>{formatCredits(p.creditsPerDay)} credits</dd>
        </div>
        <div>
          <dt>Devices per key</dt>
          <dd>{p.maxActivations}</dd>
        </div>
      </dl>
      <dl className="product-stats" aria-label={`${p.name} statistics`}>
        <Stat label="Generated" value={p.stats.totalGenerated} />
        {/* Keys sold and revenue come to the owner only (this tab is the owner's). */}
        <Stat label="Sold" value={p.stats.totalSold ?? 0} />
        <Stat label="Revenue" value={p.stats.revenue ?? 0} />
        <Stat label="Activations" value={p.stats.totalActivations} />
      </dl>
      <div className="user-card-actions">
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          aria-label={`Edit ${p.name}`}
          onClick={() => open({ kind: 'edit', product: p })}
        >
          Edit
        </button>
        <button
          type="button"
          className="btn btn-danger btn-sm"
          aria-label={`Delete ${p.name}`}
          onClick={() => open({ kind: 'delete', product: p })}
        >
          Delete
        </button>
      </div>
    </li>
  );
}

export function ProductsTab() {
  const products = useAllProducts();
  const [search, setSearch] = useState('');
  const [type, setType] = useState<ProductType | ''>('');
  const [status, setStatus] = useState<'active' | 'inactive' | ''>('');
  const [dialog, setDialog] = useState<Dialog>(null);

  useEffect(() => {
    if (products.isError) toast.error('Failed to load products');
  }, [products.isError]);

  // The catalogue is small (a few hundred at most): filtered here, as the original client does.
  const shown = useMemo(() => {
    const needle = search.trim().toLowerCase();
    return (products.data ?? []).filter(
      (p) =>
        (!needle || p.name.toLowerCase().includes(needle) || p.keyTag.toLowerCase().includes(needle)) &&
        (!type || p.productType === type) &&
        (!status || p.isActive === (status === 'active')),
    );
  }, [products.data, search, type, status]);

  const close = () => setDialog(null);
  return (
    <section aria-labelledby="products-title" className="admin-section">
      <div className="section-head">
        <div>
          <h2 id="products-title">Product Management</h2>
          <p className="muted">
            {products.data
              ? `${products.data.length} ${products.data.length === 1 ? 'product' : 'products'}`
              : 'The catalogue, its prices and its sales'}
          </p>
        </div>
        <button type="button" className="btn btn-primary" onClick={() => setDialog({ kind: 'create' })}>
          <Icon name="plus" size={16} />
          Create Product
        </button>
      </div>

      <div className="filters">
        <div className="field grow">
          <label htmlFor="product-search">Search products</label>
          <input
            id="product-search"
            type="search"
            placeholder="Name or key tag"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="product-type-filter">Type</label>
          <select id="product-type-filter" value={type} onChange={(e) => setType(e.target.value as ProductType | '')}>
            <option value="">All types</option>
            <ProductTypeOptions />
          </select>
        </div>
        <div className="field">
          <label htmlFor="product-status-filter">Status</label>
          <select id="product-status-filter" value={status} onChange={(e) => setStatus(e.target.value as 'active' | 'inactive' | '')}>
            <option value="">All statuses</option>
            <option value="active">Active</option>
            <option value="inactive">Inactive</option>
          </select>
        </div>
      </div>

      {products.isPending ? (
        <div className="panel-loading">
          <Spinner label="Loading products…" />
        </div>
      ) : products.isError && !products.data ? (
        <EmptyState title="Failed to load products" icon="⚠">
          <button type="button" className="btn btn-secondary" onClick={() => void products.refetch()}>
            Try again
          </button>
        </EmptyState>
      ) : shown.length === 0 ? (
        <EmptyState title="No products found" icon="📦">
          <p className="muted">
            {products.data.length > 0 ? 'No product matches these filters.' : 'Create the first product to start selling keys.'}
          </p>
        </EmptyState>
      ) : (
        <ul className="admin-product-grid">
          {shown.map((p) => (
            <ProductCard key={p._id} product={p} open={setDialog} />
          ))}
        </ul>
      )}

      {dialog?.kind === 'create' && <ProductFormModal product={null} onClose={close} />}
      {dialog?.kind === 'edit' && <ProductFormModal product={dialog.product} onClose={close} />}
      {dialog?.kind === 'delete' && <DeleteProductModal product={dialog.product} onClose={close} />}
    </section>
  );
}
