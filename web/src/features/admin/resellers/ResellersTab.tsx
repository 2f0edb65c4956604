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
import { formatCredits } from '../../../lib/format';
import { schemaErrors, useForm } from '../../../lib/form';
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
  const form = useForm<TierForm>({
    initial: {
      name: tier?.name ?? '',
      discountPercent: String(tier?.discountPercent ?? 20),
      commissionPercent: String(tier?.commissionPercent ?? 10),
      dailyKeyCap: tier?.dailyKeyCap ? String(tier.dailyKeyCap) : '',
      isDefault: tier?.isDefault ?? false,
      allProducts: tier ? tier.productIds === null : true,
    },
    validate: (v) => schemaErrors<TierForm>(resellerTierInputSchema, tierInput(v, chosen)),
    submit: async (v) => {
      const saved = await save.mutateAsync({ id: tier?._id ?? null, body: resellerTierInputSchema.parse(tierInput(v, chosen)) });
      toast.success(editing ? `${saved.name} updated` : `Tier ${saved.name} created`);
      onClose();
    },
    onError: (err) => errorMessage(err, editing ? 'Failed to update the tier' : 'Failed to create the tier'),
  });
  const number = { type: 'number', min: 0, step: 1, inputMode: 'numeric' } as const;
  const formId = editing ? 'edit-tier-form' : 'create-tier-form';
  // The schema's complaint about the product list has no text field of its own: it shows under the list.
  const productError = (form.errors as Record<string, string | undefined>).productIds;
  return (
    <FormModal
      title={editing ? `Edit ${tier.name}` : 'Create Tier'}
      onClose={onClose}
      busy={save.isPending}
      size="lg"
      formId={formId}
      submitLabel={editing ? 'Save Changes' : 'Create Tier'}
      busyLabel="Saving…"
    >
      <form id={formId} onSubmit={form.onSubmit} noValidate>
        {form.formError && (
          <div className="notice notice-error" role="alert">
            {form.formError}
          </div>
        )}
        <Field label="Tier name" {...form.field('name')} maxLength={40} required autoFocus />
        <div className="form-grid">
          <Field
            label="Wholesale discount (%)"
            {...number}
            max={90}
            {...form.field('discountPercent')}
            hint="Off the list price of keys bought for customers"
          />
          <Field
            label="Commission (%)"
            {...number}
            max={90}
            {...form.field('commissionPercent')}
            hint="Of a referred customer’s own purchases"
          />
          <Field
            label="Daily key cap"
            {...number}
            min={1}
            {...form.field('dailyKeyCap')}
            hint="Keys for customers per UTC day; empty: no cap"
          />
        </div>
        <CheckboxField label="Sells every product" {...form.checkbox('allProducts')} />
        {!form.values.allProducts && (
          <fieldset className="tier-products">
            <legend>Products this tier sells</legend>
            {products.isPending && <p className="muted">Loading products…</p>}
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
        <CheckboxField label="Default tier (for every reseller not put in another)" {...form.checkbox('isDefault')} />
      </form>
    </FormModal>
  );
}

function Tiers() {
  const tiers = useResellerTiers();
  const remove = useDeleteTier();
  const [editing, setEditing] = useState<ResellerTier | null | 'new'>(null);
  const [deleting, setDeleting] = useState<ResellerTier | null>(null);
  async function onDelete() {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting._id);
      toast.success(`${deleting.name} deleted`);
      setDeleting(null);
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to delete the tier'));
    }
  }
  return (
    <Card
      title="Reseller Tiers"
      actions={
        <button type="button" className="btn btn-primary btn-sm" onClick={() => setEditing('new')}>
          New Tier
        </button>
      }
    >
      <QueryState
        query={tiers}
        loading="Loading tiers…"
        failed="Could not load the tiers."
        isEmpty={(data) => data.tiers.length === 0}
        empty={<p className="muted">No tiers yet: resellers pay the settings’ daily discount and earn no commission.</p>}
      >
        {(data) => (
          <DataTable<ResellerTier>
            label="Reseller tiers"
            rows={data.tiers}
            rowKey={(t) => t._id}
            columns={[
              {
                header: 'Tier',
                label: 'Tier',
                cell: (t) => (
                  <span>
                    {t.name} {t.isDefault && <Badge tone="blue">Default</Badge>}
                  </span>
                ),
              },
              { header: 'Discount', label: 'Discount', cell: (t) => `${t.discountPercent}%` },
              { header: 'Commission', label: 'Commission', cell: (t) => `${t.commissionPercent}%` },
              { header: 'Products', label: 'Products', cell: (t) => (t.productIds === null ? 'All' : formatCredits(t.productIds.length)) },
              { header: 'Daily cap', label: 'Daily cap', cell: (t) => (t.dailyKeyCap === null ? 'None' : formatCredits(t.dailyKeyCap)) },
              { header: 'Resellers', label: 'Resellers', cell: (t) => formatCredits(t.resellers) },
              {
                header: <span className="visually-hidden">Actions</span>,
                label: 'Actions',
                cell: (t) => (
                  <div className="row-actions">
                    <button type="button" className="btn btn-secondary btn-sm" onClick={() => setEditing(t)} aria-label={`Edit ${t.name}`}>
                      Edit
                    </button>
                    <button type="button" className="btn btn-danger btn-sm" onClick={() => setDeleting(t)} aria-label={`Delete ${t.name}`}>
                      Delete
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
          title="Delete Tier"
          confirmLabel="Delete Tier"
          busyLabel="Deleting…"
          busy={remove.isPending}
          onConfirm={asyncHandler(onDelete)}
          onClose={() => setDeleting(null)}
        >
          <p>
            Delete <strong>{deleting.name}</strong>? Its resellers go to the default tier. Commissions already earned stay.
          </p>
        </ConfirmModal>
      )}
    </Card>
  );
}

function TierSelect({ reseller, tiers }: { reseller: ResellerFigures; tiers: ResellerTier[] }) {
  const setTier = useSetResellerTier();
  const value = reseller.tier && !reseller.tier.byDefault ? reseller.tier._id : '';
  async function onChange(tierId: string) {
    try {
      await setTier.mutateAsync({ resellerId: reseller._id, tierId: tierId || null });
      toast.success(`${reseller.username} moved`);
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to change the tier'));
    }
  }
  return (
    <select
      className="tier-select"
      aria-label={`Tier of ${reseller.username}`}
      value={value}
      disabled={setTier.isPending}
      onChange={(e) => void onChange(e.target.value)}
    >
      <option value="">Default{tiers.some((t) => t.isDefault) ? ` (${tiers.find((t) => t.isDefault)!.name})` : ' (none)'}</option>
      {tiers.map((t) => (
        <option key={t._id} value={t._id}>
          {t.name}
        </option>
      ))}
    </select>
  );
}

function Resellers({ onShow }: { onShow: (reseller: ResellerFigures) => void }) {
  const [page, setPage] = useState(1);
  const resellers = useResellers(page);
  const tiers = useResellerTiers();
  return (
    <Card title="Resellers">
      <QueryState
        query={resellers}
        loading="Loading resellers…"
        failed="Could not load the resellers."
        isEmpty={(data) => data.resellers.length === 0}
        empty={<p className="muted">No resellers yet: give an account the reseller role in Users.</p>}
      >
        {(data) => (
          <>
            <DataTable<ResellerFigures>
              label="Resellers compared"
              rows={data.resellers}
              rowKey={(r) => r._id}
              busy={resellers.isFetching}
              columns={[
                { header: 'Reseller', label: 'Reseller', cell: (r) => <span className={r.isActive ? '' : 'muted'}>{r.username}</span> },
                { header: 'Tier', label: 'Tier', cell: (r) => <TierSelect reseller={r} tiers={tiers.data?.tiers ?? []} /> },
                { header: 'Referral code', label: 'Referral code', cell: (r) => <code>{r.referralCode ?? '—'}</code> },
                { header: 'Customers', label: 'Customers', cell: (r) => formatCredits(r.customers) },
                { header: 'Earned', label: 'Earned', cell: (r) => `${formatCredits(r.earned)} credits` },
                { header: 'Spent', label: 'Spent', cell: (r) => `${formatCredits(r.spent)} credits` },
                { header: 'Keys for customers', label: 'Keys for customers', cell: (r) => formatCredits(r.keysForCustomers) },
                {
                  header: <span className="visually-hidden">Statistics</span>,
                  label: 'Statistics',
                  cell: (r) => (
                    <button
                      type="button"
                      className="btn btn-secondary btn-sm"
                      onClick={() => onShow(r)}
                      aria-label={`Statistics of ${r.username}`}
                    >
                      Statistics
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
  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!customerId) return toast.error('Please choose a customer');
    try {
      await assign.mutateAsync({ customerId, resellerId: resellerId || null });
      const name = choices.find((u) => u._id === customerId)?.username ?? 'The customer';
      toast.success(resellerId ? `${name} now belongs to the reseller` : `${name} belongs to no reseller now`);
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to change the customer’s reseller'));
    }
  }
  return (
    <Card title="A Customer’s Reseller">
      <form className="form-grid assign-customer" onSubmit={asyncHandler(onSubmit)} noValidate aria-label="Give a customer to a reseller">
        <Field label="Find a customer" type="search" value={search} maxLength={100} onChange={(e) => setSearch(e.target.value)} />
        <SelectField label="Customer" value={customerId} onChange={(e) => setCustomerId(e.target.value)}>
          <option value="">{customers.isPending ? 'Loading…' : 'Choose a customer…'}</option>
          {choices.map((u) => (
            <option key={u._id} value={u._id}>
              {u.username} ({u.email})
            </option>
          ))}
        </SelectField>
        <SelectField label="Reseller" value={resellerId} onChange={(e) => setResellerId(e.target.value)}>
          <option value="">No reseller</option>
          {(resellers.data?.resellers ?? []).map((r) => (
            <option key={r._id} value={r._id}>
              {r.username}
            </option>
          ))}
        </SelectField>
        <button type="submit" className="btn btn-primary" disabled={!customerId || assign.isPending}>
          {assign.isPending ? 'Saving…' : 'Save'}
        </button>
      </form>
    </Card>
  );
}

export function ResellersTab() {
  const [shown, setShown] = useState<ResellerFigures | null>(null);
  return (
    <div className="admin-section">
      <Tiers />
      <Resellers onShow={setShown} />
      {shown && (
        <div>
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => setShown(null)}>
            Close statistics of {shown.username}
          </button>
          <ResellerStatistics key={shown._id} resellerId={shown._id} title={`Statistics of ${shown.username}`} />
        </div>
      )}
      <AssignCustomer />
    </div>
  );
}
