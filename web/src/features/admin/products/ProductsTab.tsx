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
import { useT } from '../../../lib/i18n';
import { FeatureList } from '../../../components/products/FeatureList';
import { ProductTypeBadge, ProductTypeOptions } from '../../../components/products/ProductTypeBadge';
import { useAllProducts } from './api';
import { DeleteProductModal, ProductFormModal } from './ProductModals';

type Product = Schemas['Product'];
type ProductType = Schemas['ProductType'];

type Dialog = { kind: 'create' } | { kind: 'edit' | 'delete'; product: Product } | null;

function ProductCard({ product: p, open }: { product: Product; open: (d: Dialog) => void }) {
  const t = useT();
  return (
    <li className="card product-card admin-product-card">
      <div className="product-card-header">
        <div>
          <h3 className="product-name">{p.name}</h3>
          <div className="product-meta">
            <span className="key-tag" title={t('admin.products.keyTag')}>
              {p.keyTag}
            </span>
            <span className="muted">{t('admin.products.dayRange', { min: p.minDays, max: p.maxDays })}</span>
          </div>
        </div>
        <div className="user-card-badges">
          <ProductTypeBadge type={p.productType} />
          <Badge tone={p.isActive ? 'green' : 'gray'}>{p.isActive ? t('admin.products.active') : t('admin.products.inactive')}</Badge>
        </div>
      </div>
      <p className="product-description">{p.description}</p>
      <FeatureList features={p.features} shown={ADMIN_CARD_FEATURES} />
      <dl className="product-costs">
        <Detail label={t('admin.products.baseCost')}>{t('admin.products.credits', { credits: formatCredits(p.baseCreditCost) })}</Detail>
        <Detail label={t('admin.products.perDay')}>{t('admin.products.credits', { credits: formatCredits(p.creditsPerDay) })}</Detail>
        <Detail label={t('admin.products.devicesPerKey')}>{formatCredits(p.maxActivations)}</Detail>
      </dl>
      <dl className="product-stats" aria-label={t('admin.products.statistics', { name: p.name })}>
        <Detail label={t('admin.products.generated')}>{formatCredits(p.stats.totalGenerated)}</Detail>
        {/* Keys sold and revenue come to the owner only (this tab is the owner's). */}
        <Detail label={t('admin.products.sold')}>{formatCredits(p.stats.totalSold ?? 0)}</Detail>
        <Detail label={t('admin.products.revenue')}>{formatCredits(p.stats.revenue ?? 0)}</Detail>
        <Detail label={t('admin.products.activations')}>{formatCredits(p.stats.totalActivations)}</Detail>
      </dl>
      <div className="user-card-actions">
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          aria-label={t('admin.products.editNamed', { name: p.name })}
          onClick={() => open({ kind: 'edit', product: p })}
        >
          {t('admin.products.edit')}
        </button>
        <button
          type="button"
          className="btn btn-danger btn-sm"
          aria-label={t('admin.products.deleteNamed', { name: p.name })}
          onClick={() => open({ kind: 'delete', product: p })}
        >
          {t('admin.products.delete')}
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
  const t = useT();

  useEffect(() => {
    if (products.isError) toast.error(t('admin.products.loadFailed'));
  }, [products.isError, t]);

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
          <h2 id="products-title">{t('admin.products.title')}</h2>
          <p className="muted">
            {products.data ? t('admin.products.count', { count: products.data.length }) : t('admin.products.subtitle')}
          </p>
        </div>
        <button type="button" className="btn btn-primary" onClick={() => setDialog({ kind: 'create' })}>
          <Icon name="plus" size={16} />
          {t('admin.products.create')}
        </button>
      </div>

      <div className="filters">
        <Field
          label={t('admin.products.search')}
          id="product-search"
          className="grow"
          type="search"
          placeholder={t('admin.products.searchPlaceholder')}
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <SelectField
          label={t('admin.products.type')}
          id="product-type-filter"
          value={type}
          onChange={(e) => setType(e.target.value as ProductType | '')}
        >
          <option value="">{t('admin.products.allTypes')}</option>
          <ProductTypeOptions />
        </SelectField>
        <SelectField
          label={t('admin.products.status')}
          id="product-status-filter"
          value={status}
          onChange={(e) => setStatus(e.target.value as 'active' | 'inactive' | '')}
        >
          <option value="">{t('admin.products.allStatuses')}</option>
          <option value="active">{t('admin.products.active')}</option>
          <option value="inactive">{t('admin.products.inactive')}</option>
        </SelectField>
      </div>

      <QueryState
        query={products}
        loading={t('admin.products.loading')}
        failed={t('admin.products.loadFailed')}
        keepDataOnError
        isEmpty={() => shown.length === 0}
        empty={
          <EmptyState title={t('admin.products.emptyTitle')} icon="📦">
            <p className="muted">{products.data?.length ? t('admin.products.emptyFiltered') : t('admin.products.empty')}</p>
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
