// The Products tab (Admin Product Management): search by name or tag, type and
// status filters, product cards with their stats, and the create, edit and delete dialogs.
import { useEffect, useMemo, useState } from 'react';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { Badge } from '../../../components/ui/badge';
import { EmptyState } from '../../../components/ui/card';
import { Detail } from '../../../components/ui/detail';
import { Field, SelectField } from '../../../components/ui/field';
import { Icon } from '../../../components/ui/icons';
import { QueryState } from '../../../components/ui/query-state';
import { toast } from '../../../components/ui/toast';
import { ADMIN_CARD_FEATURES } from '../../../lib/constants';
import { formatCredits } from '../../../lib/format';
import { FeatureList } from '../../../components/products/FeatureList';
import { ProductTypeBadge, ProductTypeOptions } from '../../../components/products/ProductTypeBadge';
import { useAllProducts } from './api';
import { DeleteProductModal, ProductFormModal } from './ProductModals';

type Product = Schemas['Product'];
type ProductType = Schemas['ProductType'];

type Dialog = { kind: 'create' } | { kind: 'edit' | 'delete'; product: Product } | null;

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
        <Detail label="Base cost">{formatCredits(p.baseCreditCost)} credits</Detail>
        <Detail label="Per day">{formatCredits(p.creditsPerDay)} credits</Detail>
        <Detail label="Devices per key">{p.maxActivations}</Detail>
      </dl>
      <dl className="product-stats" aria-label={`${p.name} statistics`}>
        <Detail label="Generated">{formatCredits(p.stats.totalGenerated)}</Detail>
        {/* Keys sold and revenue come to the owner only (this tab is the owner's). */}
        <Detail label="Sold">{formatCredits(p.stats.totalSold ?? 0)}</Detail>
        <Detail label="Revenue">{formatCredits(p.stats.revenue ?? 0)}</Detail>
        <Detail label="Activations">{formatCredits(p.stats.totalActivations)}</Detail>
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
        <Field
          label="Search products"
          id="product-search"
          className="grow"
          type="search"
          placeholder="Name or key tag"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <SelectField label="Type" id="product-type-filter" value={type} onChange={(e) => setType(e.target.value as ProductType | '')}>
          <option value="">All types</option>
          <ProductTypeOptions />
        </SelectField>
        <SelectField
          label="Status"
          id="product-status-filter"
          value={status}
          onChange={(e) => setStatus(e.target.value as 'active' | 'inactive' | '')}
        >
          <option value="">All statuses</option>
          <option value="active">Active</option>
          <option value="inactive">Inactive</option>
        </SelectField>
      </div>

      <QueryState
        query={products}
        loading="Loading products…"
        failed="Failed to load products"
        keepDataOnError
        isEmpty={() => shown.length === 0}
        empty={
          <EmptyState title="No products found" icon="📦">
            <p className="muted">
              {products.data?.length ? 'No product matches these filters.' : 'Create the first product to start selling keys.'}
            </p>
          </EmptyState>
        }
      >
        {() => (
          <ul className="admin-product-grid">
            {shown.map((p) => (
              <ProductCard key={p._id} product={p} open={setDialog} />
            ))}
          </ul>
        )}
      </QueryState>

      {dialog?.kind === 'create' && <ProductFormModal product={null} onClose={close} />}
      {dialog?.kind === 'edit' && <ProductFormModal product={dialog.product} onClose={close} />}
      {dialog?.kind === 'delete' && <DeleteProductModal product={dialog.product} onClose={close} />}
    </section>
  );
}
