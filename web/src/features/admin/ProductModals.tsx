// Product Management's dialogs: the create/edit form with its rules and defaults, and
// the delete confirmation. The form is checked with the API's own product schema.
import { useState, type FormEvent } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import {
  DEFAULT_OFFLINE_TOKEN_HOURS,
  MAX_OFFLINE_TOKEN_HOURS,
  MIN_OFFLINE_TOKEN_HOURS,
  productInputSchema,
} from '../../../../worker/modules/catalog/schemas';
import { ProductTypeOptions } from '../../components/products/ProductTypeBadge';
import { ConfirmModal } from '../../components/ui/confirm-modal';
import { Field } from '../../components/ui/field';
import { FormModal } from '../../components/ui/form-modal';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { DEFAULT_CREDITS_PER_DAY, DEFAULT_MAX_ACTIVATIONS, DEFAULT_MAX_DAYS, DEFAULT_MIN_DAYS } from '../../lib/constants';
import { useDeleteProduct, useSaveProduct } from './keys-api';
import { asyncHandler } from '../../lib/async-handler';

type Product = Schemas['Product'];

type Errors = Record<string, string>;

type ProductForm = {
  name: string;
  description: string;
  keyTag: string;
  productType: Schemas['ProductType'];
  baseCreditCost: string;
  creditsPerDay: string;
  minDays: string;
  maxDays: string;
  maxActivations: string;
  offlineTokenHours: string;
  features: string;
  isActive: boolean;
};

const NEW_PRODUCT: ProductForm = {
  name: '',
  description: '',
  keyTag: '',
  productType: 'software',
  baseCreditCost: '',
  creditsPerDay: String(DEFAULT_CREDITS_PER_DAY),
  minDays: String(DEFAULT_MIN_DAYS),
  maxDays: String(DEFAULT_MAX_DAYS),
  maxActivations: String(DEFAULT_MAX_ACTIVATIONS),
  offlineTokenHours: String(DEFAULT_OFFLINE_TOKEN_HOURS),
  features: '',
  isActive: true,
};

const formOf = (p: Product): ProductForm => ({
  name: p.name,
  description: p.description,
  keyTag: p.keyTag,
  productType: p.productType,
  baseCreditCost: String(p.baseCreditCost),
  creditsPerDay: String(p.creditsPerDay),
  minDays: String(p.minDays),
  maxDays: String(p.maxDays),
  maxActivations: String(p.maxActivations),
  offlineTokenHours: String(p.offlineTokenHours),
  features: p.features.join(', '),
  isActive: p.isActive,
});

/** The form's own rules: costs at least 1 here, though the API accepts 0. */
function formErrors(form: ProductForm): Errors {
  const errors: Errors = {};
  if (form.baseCreditCost.trim() === '') errors.baseCreditCost = 'Base cost is required';
  else if (Number(form.baseCreditCost) < 1) errors.baseCreditCost = 'Base cost must be at least 1';
  if (form.creditsPerDay.trim() !== '' && Number(form.creditsPerDay) < 1) errors.creditsPerDay = 'Credits per day must be at least 1';
  return errors;
}

/** A number field's text as sent: whole, and floored at 0; empty takes the default. */
function whole(text: string, fallback: number | undefined, floorAtZero = false) {
  if (text.trim() === '') return fallback;
  const n = Number(text);
  if (!Number.isFinite(n)) return n;
  return floorAtZero ? Math.max(0, Math.floor(n)) : n;
}

export function ProductFormModal({ product, onClose }: { product: Product | null; onClose: () => void }) {
  const [form, setForm] = useState<ProductForm>(product ? formOf(product) : NEW_PRODUCT);
  const [errors, setErrors] = useState<Errors>({});
  const save = useSaveProduct();
  const editing = product !== null;

  const set = (field: keyof ProductForm) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) => {
    // The key tag is forced to capitals as it is typed.
    const value = field === 'keyTag' ? e.target.value.toUpperCase() : e.target.value;
    setForm((f) => ({ ...f, [field]: value }));
    setErrors((errs) => {
      const { [field]: _gone, ...rest } = errs;
      return rest;
    });
  };

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const own = formErrors(form);
    const parsed = productInputSchema.safeParse({
      name: form.name,
      description: form.description,
      keyTag: form.keyTag,
      productType: form.productType,
      baseCreditCost: whole(form.baseCreditCost, undefined, true),
      creditsPerDay: whole(form.creditsPerDay, DEFAULT_CREDITS_PER_DAY, true),
      minDays: whole(form.minDays, DEFAULT_MIN_DAYS),
      maxDays: whole(form.maxDays, DEFAULT_MAX_DAYS),
      maxActivations: whole(form.maxActivations, DEFAULT_MAX_ACTIVATIONS),
      offlineTokenHours: whole(form.offlineTokenHours, DEFAULT_OFFLINE_TOKEN_HOURS),
      features: form.features,
      isActive: form.isActive,
    });
    const schemaErrors: Errors = {};
    if (!parsed.success) for (const issue of parsed.error.issues) schemaErrors[String(issue.path[0] ?? 'form')] ??= issue.message;
    const all = { ...schemaErrors, ...own };
    if (Object.keys(all).length > 0 || !parsed.success) return setErrors(all);
    setErrors({});
    try {
      const saved = await save.mutateAsync({ id: product?._id ?? null, product: parsed.data });
      toast.success(editing ? `${saved.name} updated` : `${saved.name} created`);
      onClose();
    } catch (err) {
      toast.error(errorMessage(err, editing ? 'Failed to update product' : 'Failed to create product'));
    }
  }

  const formId = editing ? 'edit-product-form' : 'create-product-form';
  return (
    <FormModal
      open
      title={editing ? `Edit ${product.name}` : 'Create Product'}
      onClose={onClose}
      busy={save.isPending}
      size="lg"
      formId={formId}
      submitLabel={editing ? 'Save Changes' : 'Create Product'}
      busyLabel="Saving…"
    >
      <form id={formId} onSubmit={asyncHandler(onSubmit)} noValidate>
        <div className="form-grid">
          <Field label="Name" name="name" value={form.name} onChange={set('name')} error={errors.name} maxLength={100} required autoFocus />
          <Field
            label="Key tag"
            name="keyTag"
            value={form.keyTag}
            onChange={set('keyTag')}
            error={errors.keyTag}
            hint="2 to 10 capital letters or digits; every key starts with it"
            maxLength={10}
            pattern="[A-Z0-9]{2,10}"
            autoCapitalize="characters"
            required
          />
        </div>
        <div className="field">
          <label htmlFor={`${formId}-description`}>Description</label>
          <textarea
            id={`${formId}-description`}
            rows={3}
            value={form.description}
            onChange={set('description')}
            maxLength={2000}
            aria-invalid={errors.description ? true : undefined}
            aria-describedby={errors.description ? `${formId}-description-error` : undefined}
            required
          />
          {errors.description && (
            <div id={`${formId}-description-error`} className="field-error" role="alert">
              {errors.description}
            </div>
          )}
        </div>
        <div className="form-grid">
          <div className="field">
            <label htmlFor={`${formId}-type`}>Product type</label>
            <select id={`${formId}-type`} value={form.productType} onChange={set('productType')}>
              <ProductTypeOptions />
            </select>
          </div>
          <Field
            label="Base cost (credits)"
            name="baseCreditCost"
            type="number"
            min={1}
            step={1}
            inputMode="numeric"
            value={form.baseCreditCost}
            onChange={set('baseCreditCost')}
            error={errors.baseCreditCost}
            required
          />
          <Field
            label="Credits per day"
            name="creditsPerDay"
            type="number"
            min={1}
            step={1}
            inputMode="numeric"
            value={form.creditsPerDay}
            onChange={set('creditsPerDay')}
            error={errors.creditsPerDay}
          />
        </div>
        <div className="form-grid">
          <Field
            label="Minimum days"
            name="minDays"
            type="number"
            min={1}
            step={1}
            inputMode="numeric"
            value={form.minDays}
            onChange={set('minDays')}
            error={errors.minDays}
          />
          <Field
            label="Maximum days"
            name="maxDays"
            type="number"
            min={1}
            step={1}
            inputMode="numeric"
            value={form.maxDays}
            onChange={set('maxDays')}
            error={errors.maxDays}
          />
          <Field
            label="Max activations"
            name="maxActivations"
            type="number"
            min={1}
            step={1}
            inputMode="numeric"
            value={form.maxActivations}
            onChange={set('maxActivations')}
            error={errors.maxActivations}
            hint="Devices per key"
          />
          <Field
            label="Offline token lifetime (hours)"
            name="offlineTokenHours"
            type="number"
            min={MIN_OFFLINE_TOKEN_HOURS}
            max={MAX_OFFLINE_TOKEN_HOURS}
            step={1}
            inputMode="numeric"
            value={form.offlineTokenHours}
            onChange={set('offlineTokenHours')}
            error={errors.offlineTokenHours}
            hint="1 to 720 (30 days). A device that leaves a key keeps its slot this long."
          />
        </div>
        <Field
          label="Features"
          name="features"
          value={form.features}
          onChange={set('features')}
          error={errors.features}
          hint="Separated by commas"
        />
        <label className="checkbox">
          <input type="checkbox" checked={form.isActive} onChange={(e) => setForm((f) => ({ ...f, isActive: e.target.checked }))} /> Active
          (offered for purchase and generation)
        </label>
      </form>
    </FormModal>
  );
}

export function DeleteProductModal({ product, onClose }: { product: Product; onClose: () => void }) {
  const remove = useDeleteProduct();
  async function onConfirm() {
    try {
      const answer = await remove.mutateAsync(product._id);
      // A product with keys is deactivated instead; the server says so.
      if (answer.deleted) toast.success(`${product.name} deleted`);
      else toast.info(answer.message, 8000);
      onClose();
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to delete product'));
    }
  }
  return (
    <ConfirmModal
      title="Delete Product"
      confirmLabel="Delete Product"
      busyLabel="Deleting…"
      busy={remove.isPending}
      onConfirm={asyncHandler(onConfirm)}
      onClose={onClose}
    >
      <p>
        Delete <strong>{product.name}</strong>?
      </p>
      <p className="muted">A product that already has license keys is deactivated instead, so its keys and sales history stay.</p>
    </ConfirmModal>
  );
}
