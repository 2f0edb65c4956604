// The Resellers tab (owner): the reseller tiers (discount, commission, products, daily cap, the
// default), every reseller's figures side by side with the tier they are in, one reseller's
// statistics, and which reseller a customer belongs to.
import { useState, type FormEvent } from 'react';
import { resellerTierInputSchema } from '../../../../../worker/modules/resellers/schemas';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { Badge } from '../../../components/ui/badge';
import { Card } from '../../../components/ui/card';
import { ConfirmModal } from '../../../components/ui/confirm-modal';
import { DataTable } from '../../../components/ui/data-table';
import { CheckboxField, Field, SelectField } from '../../../components/ui/field';
import { FormModal } from '../../../components/ui/form-modal';
import { Pagination } from '../../../components/ui/pagination';
import { QueryState } from '../../../components/ui/query-state';
import { toast } from '../../../components/ui/toast';
import { errorMessage } from '../../../lib/api';
import { asyncHandler } from '../../../lib/async-handler';
import { useDebounced } from '../../../lib/debounce';
import { formatCredits, formatPercent } from '../../../lib/format';
import { FormattedMessage } from 'react-intl';
import { useT } from '../../../lib/i18n';
import { useForm } from '../../../lib/form';
import { adminSchemaErrors } from '../schema-messages';
import { useProducts } from '../../../lib/products';
import { useCustomerChoices } from '../users/api';
import { useDeleteTier, useResellers, useResellerTiers, useSaveTier, useSetCustomerReseller, useSetResellerTier } from './api';
import { ResellerStatistics } from './ResellerStatistics';

type ResellerTier = Schemas['ResellerTier'];
type ResellerFigures = Schemas['ResellerFigures'];

type TierForm = {
  name: string;
  discountPercent: string;
  commissionPercent: string;
  dailyKeyCap: string;
  isDefault: boolean;
  allProducts: boolean;
};

const tierInput = (form: TierForm, productIds: string[]) => ({
  name: form.name,
  discountPercent: form.discountPercent.trim() === '' ? undefined : Number(form.discountPercent),
  commissionPercent: form.commissionPercent.trim() === '' ? undefined : Number(form.commissionPercent),
  dailyKeyCap: form.dailyKeyCap.trim() === '' ? null : Number(form.dailyKeyCap),
  productIds: form.allProducts ? null : productIds,
  isDefault: form.isDefault,
});

function TierFormModal({ tier, onClose }: { tier: ResellerTier | null; onClose: () => void }) {
  const save = useSaveTier();
  const products = useProducts();
  const [chosen, setChosen] = useState<string[]>(tier?.productIds ?? []);
  const editing = tier !== null;
  const t = useT();
  const form = useForm<TierForm>({
    initial: {
      name: tier?.name ?? '',
      discountPercent: String(tier?.discountPercent ?? 20),
      commissionPercent: String(tier?.commissionPercent ?? 10),
      dailyKeyCap: tier?.dailyKeyCap ? String(tier.dailyKeyCap) : '',
      isDefault: tier?.isDefault ?? false,
      allProducts: tier ? tier.productIds === null : true,
    },
    validate: (v) =>
      adminSchemaErrors<TierForm>(resellerTierInputSchema, tierInput(v, chosen), {
        discountPercent: t('admin.tiers.discount'),
        commissionPercent: t('admin.tiers.commission'),
        dailyKeyCap: t('admin.tiers.dailyCap'),
      }),
    submit: async (v) => {
      const saved = await save.mutateAsync({ id: tier?._id ?? null, body: resellerTierInputSchema.parse(tierInput(v, chosen)) });
      toast.success(editing ? t('admin.tiers.updated', { name: saved.name }) : t('admin.tiers.created', { name: saved.name }));
      onClose();
    },
    onError: (err) => errorMessage(err, editing ? t('admin.tiers.updateFailed') : t('admin.tiers.createFailed')),
  });
  const number = { type: 'number', min: 0, step: 1, inputMode: 'numeric' } as const;
  const formId = editing ? 'edit-tier-form' : 'create-tier-form';
  // The schema's complaint about the product list has no text field of its own: it shows under the list.
  const productError = (form.errors as Record<string, string | undefined>).productIds;
  return (
    <FormModal
      title={editing ? t('admin.tiers.editNamed', { name: tier.name }) : t('admin.tiers.create')}
      onClose={onClose}
      busy={save.isPending}
      size="lg"
      formId={formId}
      submitLabel={editing ? t('admin.tiers.saveChanges') : t('admin.tiers.create')}
      busyLabel={t('admin.tiers.saving')}
    >
      <form id={formId} onSubmit={form.onSubmit} noValidate>
        {form.formError && (
          <div className="notice notice-error" role="alert">
            {form.formError}
          </div>
        )}
        <Field label={t('admin.tiers.name')} {...form.field('name')} maxLength={40} required autoFocus />
        <div className="form-grid">
          <Field
            label={t('admin.tiers.discount')}
            {...number}
            max={90}
            {...form.field('discountPercent')}
            hint={t('admin.tiers.discountHint')}
          />
          <Field
            label={t('admin.tiers.commission')}
            {...number}
            max={90}
            {...form.field('commissionPercent')}
            hint={t('admin.tiers.commissionHint')}
          />
          <Field
            label={t('admin.tiers.dailyCap')}
            {...number}
            min={1}
            {...form.field('dailyKeyCap')}
            hint={t('admin.tiers.dailyCapHint')}
          />
        </div>
        <CheckboxField label={t('admin.tiers.allProducts')} {...form.checkbox('allProducts')} />
        {!form.values.allProducts && (
          <fieldset className="tier-products">
            <legend>{t('admin.tiers.products')}</legend>
            {products.isPending && <p className="muted">{t('admin.products.loading')}</p>}
            {(products.data ?? []).map((p) => (
              <CheckboxField
                key={p._id}
                label={`${p.name} (${p.keyTag})`}
                checked={chosen.includes(p._id)}
                onChange={(e) => setChosen((now) => (e.target.checked ? [...now, p._id] : now.filter((id) => id !== p._id)))}
              />
            ))}
            {productError && (
              <p className="field-error" role="alert">
                {productError}
              </p>
            )}
          </fieldset>
        )}
        <CheckboxField label={t('admin.tiers.isDefault')} {...form.checkbox('isDefault')} />
      </form>
    </FormModal>
  );
}

function Tiers() {
  const tiers = useResellerTiers();
  const remove = useDeleteTier();
  const [editing, setEditing] = useState<ResellerTier | null | 'new'>(null);
  const [deleting, setDeleting] = useState<ResellerTier | null>(null);
  const t = useT();
  async function onDelete() {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting._id);
      toast.success(t('admin.tiers.deleted', { name: deleting.name }));
      setDeleting(null);
    } catch (err) {
      toast.error(errorMessage(err, t('admin.tiers.deleteFailed')));
    }
  }
  return (
    <Card
      title={t('admin.tiers.title')}
      actions={
        <button type="button" className="btn btn-primary btn-sm" onClick={() => setEditing('new')}>
          {t('admin.tiers.new')}
        </button>
      }
    >
      <QueryState
        query={tiers}
        loading={t('admin.tiers.loading')}
        failed={t('admin.tiers.loadFailed')}
        isEmpty={(data) => data.tiers.length === 0}
        empty={<p className="muted">{t('admin.tiers.empty')}</p>}
      >
        {(data) => (
          <DataTable<ResellerTier>
            label={t('admin.tiers.table')}
            rows={data.tiers}
            rowKey={(tier) => tier._id}
            columns={[
              {
                header: t('admin.tiers.tier'),
                label: t('admin.tiers.tier'),
                cell: (tier) => (
                  <span>
                    {tier.name} {tier.isDefault && <Badge tone="blue">{t('admin.tiers.default')}</Badge>}
                  </span>
                ),
              },
              {
                header: t('admin.tiers.discountColumn'),
                label: t('admin.tiers.discountColumn'),
                cell: (tier) => formatPercent(tier.discountPercent),
              },
              {
                header: t('admin.tiers.commissionColumn'),
                label: t('admin.tiers.commissionColumn'),
                cell: (tier) => formatPercent(tier.commissionPercent),
              },
              {
                header: t('admin.tiers.productsColumn'),
                label: t('admin.tiers.productsColumn'),
                cell: (tier) => (tier.productIds === null ? t('admin.tiers.all') : formatCredits(tier.productIds.length)),
              },
              {
                header: t('admin.tiers.dailyCapColumn'),
                label: t('admin.tiers.dailyCapColumn'),
                cell: (tier) => (tier.dailyKeyCap === null ? t('admin.tiers.none') : formatCredits(tier.dailyKeyCap)),
              },
              { header: t('admin.tiers.resellers'), label: t('admin.tiers.resellers'), cell: (tier) => formatCredits(tier.resellers) },
              {
                header: <span className="visually-hidden">{t('admin.tiers.actions')}</span>,
                label: t('admin.tiers.actions'),
                cell: (tier) => (
                  <div className="row-actions">
                    <button
                      type="button"
                      className="btn btn-secondary btn-sm"
                      onClick={() => setEditing(tier)}
                      aria-label={t('admin.tiers.editNamed', { name: tier.name })}
                    >
                      {t('admin.tiers.edit')}
                    </button>
                    <button
                      type="button"
                      className="btn btn-danger btn-sm"
                      onClick={() => setDeleting(tier)}
                      aria-label={t('admin.tiers.deleteNamed', { name: tier.name })}
                    >
                      {t('admin.tiers.delete')}
                    </button>
                  </div>
                ),
              },
            ]}
          />
        )}
      </QueryState>
      {editing !== null && <TierFormModal tier={editing === 'new' ? null : editing} onClose={() => setEditing(null)} />}
      {deleting && (
        <ConfirmModal
          title={t('admin.tiers.deleteTitle')}
          confirmLabel={t('admin.tiers.deleteTitle')}
          busyLabel={t('admin.tiers.deleting')}
          busy={remove.isPending}
          onConfirm={asyncHandler(onDelete)}
          onClose={() => setDeleting(null)}
        >
          <p>
            <FormattedMessage
              id="admin.tiers.deleteConfirm"
              values={{ name: deleting.name, strong: (chunks) => <strong>{chunks}</strong> }}
            />
          </p>
        </ConfirmModal>
      )}
    </Card>
  );
}

function TierSelect({ reseller, tiers }: { reseller: ResellerFigures; tiers: ResellerTier[] }) {
  const setTier = useSetResellerTier();
  const t = useT();
  const value = reseller.tier && !reseller.tier.byDefault ? reseller.tier._id : '';
  async function onChange(tierId: string) {
    try {
      await setTier.mutateAsync({ resellerId: reseller._id, tierId: tierId || null });
      toast.success(t('admin.tiers.moved', { username: reseller.username }));
    } catch (err) {
      toast.error(errorMessage(err, t('admin.tiers.moveFailed')));
    }
  }
  return (
    <select
      className="tier-select"
      aria-label={t('admin.tiers.tierOf', { username: reseller.username })}
      value={value}
      disabled={setTier.isPending}
      onChange={(e) => void onChange(e.target.value)}
    >
      <option value="">
        {tiers.some((tier) => tier.isDefault)
          ? t('admin.tiers.defaultNamed', { name: tiers.find((tier) => tier.isDefault)!.name })
          : t('admin.tiers.defaultNone')}
      </option>
      {tiers.map((tier) => (
        <option key={tier._id} value={tier._id}>
          {tier.name}
        </option>
      ))}
    </select>
  );
}

function Resellers({ onShow }: { onShow: (reseller: ResellerFigures) => void }) {
  const [page, setPage] = useState(1);
  const resellers = useResellers(page);
  const tiers = useResellerTiers();
  const t = useT();
  return (
    <Card title={t('admin.resellers.title')}>
      <QueryState
        query={resellers}
        loading={t('admin.resellers.loading')}
        failed={t('admin.resellers.loadFailed')}
        isEmpty={(data) => data.resellers.length === 0}
        empty={<p className="muted">{t('admin.resellers.empty')}</p>}
      >
        {(data) => (
          <>
            <DataTable<ResellerFigures>
              label={t('admin.resellers.table')}
              rows={data.resellers}
              rowKey={(r) => r._id}
              busy={resellers.isFetching}
              columns={[
                {
                  header: t('admin.resellers.reseller'),
                  label: t('admin.resellers.reseller'),
                  cell: (r) => <span className={r.isActive ? '' : 'muted'}>{r.username}</span>,
                },
                {
                  header: t('admin.tiers.tier'),
                  label: t('admin.tiers.tier'),
                  cell: (r) => <TierSelect reseller={r} tiers={tiers.data?.tiers ?? []} />,
                },
                {
                  header: t('admin.resellers.referralCode'),
                  label: t('admin.resellers.referralCode'),
                  cell: (r) => <code>{r.referralCode ?? '—'}</code>,
                },
                { header: t('admin.resellers.customers'), label: t('admin.resellers.customers'), cell: (r) => formatCredits(r.customers) },
                {
                  header: t('admin.resellers.earned'),
                  label: t('admin.resellers.earned'),
                  cell: (r) => t('admin.resellers.credits', { credits: formatCredits(r.earned) }),
                },
                {
                  header: t('admin.resellers.spent'),
                  label: t('admin.resellers.spent'),
                  cell: (r) => t('admin.resellers.credits', { credits: formatCredits(r.spent) }),
                },
                {
                  header: t('admin.resellers.keysForCustomers'),
                  label: t('admin.resellers.keysForCustomers'),
                  cell: (r) => formatCredits(r.keysForCustomers),
                },
                {
                  header: <span className="visually-hidden">{t('admin.resellers.statistics')}</span>,
                  label: t('admin.resellers.statistics'),
                  cell: (r) => (
                    <button
                      type="button"
                      className="btn btn-secondary btn-sm"
                      onClick={() => onShow(r)}
                      aria-label={t('admin.resellers.statisticsOf', { username: r.username })}
                    >
                      {t('admin.resellers.statistics')}
                    </button>
                  ),
                },
              ]}
            />
            <Pagination page={page} totalPages={data.totalPages} onChange={setPage} disabled={resellers.isFetching} />
          </>
        )}
      </QueryState>
    </Card>
  );
}

/** Gives a customer to a reseller, or to none. */
function AssignCustomer() {
  const [search, setSearch] = useState('');
  const [debounced] = useDebounced(search);
  const customers = useCustomerChoices(debounced);
  const resellers = useResellers(1);
  const assign = useSetCustomerReseller();
  const [customerId, setCustomerId] = useState('');
  const [resellerId, setResellerId] = useState('');
  const choices = (customers.data?.users ?? []).filter((u) => u.role === 'user');
  const t = useT();
  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!customerId) return toast.error(t('admin.assign.chooseFirst'));
    try {
      await assign.mutateAsync({ customerId, resellerId: resellerId || null });
      const name = choices.find((u) => u._id === customerId)?.username;
      toast.success(
        resellerId
          ? name
            ? t('admin.assign.assigned', { username: name })
            : t('admin.assign.assignedUnnamed')
          : name
            ? t('admin.assign.unassigned', { username: name })
            : t('admin.assign.unassignedUnnamed'),
      );
    } catch (err) {
      toast.error(errorMessage(err, t('admin.assign.failed')));
    }
  }
  return (
    <Card title={t('admin.assign.title')}>
      <form className="form-grid assign-customer" onSubmit={asyncHandler(onSubmit)} noValidate aria-label={t('admin.assign.form')}>
        <Field
          label={t('admin.assign.findCustomer')}
          type="search"
          value={search}
          maxLength={100}
          onChange={(e) => setSearch(e.target.value)}
        />
        <SelectField label={t('admin.assign.customer')} value={customerId} onChange={(e) => setCustomerId(e.target.value)}>
          <option value="">{customers.isPending ? t('admin.loading') : t('admin.assign.chooseCustomer')}</option>
          {choices.map((u) => (
            <option key={u._id} value={u._id}>
              {u.username} ({u.email})
            </option>
          ))}
        </SelectField>
        <SelectField label={t('admin.resellers.reseller')} value={resellerId} onChange={(e) => setResellerId(e.target.value)}>
          <option value="">{t('admin.assign.noReseller')}</option>
          {(resellers.data?.resellers ?? []).map((r) => (
            <option key={r._id} value={r._id}>
              {r.username}
            </option>
          ))}
        </SelectField>
        <button type="submit" className="btn btn-primary" disabled={!customerId || assign.isPending}>
          {assign.isPending ? t('admin.tiers.saving') : t('admin.assign.save')}
        </button>
      </form>
    </Card>
  );
}

export function ResellersTab() {
  const [shown, setShown] = useState<ResellerFigures | null>(null);
  const t = useT();
  return (
    <div className="admin-section">
      <Tiers />
      <Resellers onShow={setShown} />
      {shown && (
        <div>
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => setShown(null)}>
            {t('admin.resellers.closeStatistics', { username: shown.username })}
          </button>
          <ResellerStatistics
            key={shown._id}
            resellerId={shown._id}
            title={t('admin.resellers.statisticsOf', { username: shown.username })}
          />
        </div>
      )}
      <AssignCustomer />
    </div>
  );
}
