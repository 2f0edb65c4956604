// Product Management's dialogs: the create/edit form with its rules and defaults, and
// the delete confirmation. The form is checked with the API's own product schema.
import {
  DEFAULT_OFFLINE_TOKEN_HOURS,
  MAX_BORROW_HOURS,
  MAX_LEASE_MINUTES,
  MAX_OFFLINE_TOKEN_HOURS,
  MAX_SWAP_LIMIT,
  MAX_SWAP_WINDOW_DAYS,
  MAX_REFILL_DAYS,
  MAX_TRIAL_DAYS,
  MAX_USES,
  MIN_OFFLINE_TOKEN_HOURS,
  productInputSchema,
} from '../../../../../worker/modules/catalog/schemas';
import type { ExpiryModel, LicenseModel } from '../../../../../worker/platform/vocabulary';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { ProductTypeOptions } from '../../../components/products/ProductTypeBadge';
import { ConfirmModal } from '../../../components/ui/confirm-modal';
import { CheckboxField, Field, SelectField, TextAreaField } from '../../../components/ui/field';
import { FormModal } from '../../../components/ui/form-modal';
import { toast } from '../../../components/ui/toast';
import { errorMessage } from '../../../lib/api';
import { DEFAULT_CREDITS_PER_DAY, DEFAULT_MAX_ACTIVATIONS, DEFAULT_MAX_DAYS, DEFAULT_MIN_DAYS } from '../../../lib/constants';
import { schemaErrors, useForm, type FieldErrors } from '../../../lib/form';
import { useDeleteProduct, useSaveProduct } from './api';
import { asyncHandler } from '../../../lib/async-handler';

type Product = Schemas['Product'];
type ProductType = Schemas['ProductType'];

type ProductForm = {
  name: string;
  description: string;
  keyTag: string;
  productType: ProductType;
  baseCreditCost: string;
  creditsPerDay: string;
  minDays: string;
  maxDays: string;
  maxActivations: string;
  offlineTokenHours: string;
  licenseModel: LicenseModel;
  /** How its keys end: time-limited, perpetual or perpetual-fallback. */
  expiryModel: ExpiryModel;
  leaseMinutes: string;
  borrowMaxHours: string;
  /** Empty: no swap budget. */
  swapLimit: string;
  swapWindowDays: string;
  trialDays: string;
  features: string;
  /** Comma-separated names. */
  entitlements: string;
  /** Empty: not metered; the refill fields empty: no refill. */
  usageAllowance: string;
  usageRefillAmount: string;
  usageRefillDays: string;
  /** A trial key's uses (0: none). */
  trialUsageAllowance: string;
  isActive: boolean;
};

const DEFAULT_LEASE_MINUTES = 60;
/** What each licence model means for the customer, under the form's choice. */
const EXPIRY_MODEL_HINTS: Record<ExpiryModel, string> = {
  'time-limited': 'A key stops working when its days run out; its customer can renew the same key.',
  perpetual: 'A key never expires: the days only price it. Keys can then not be renewed.',
  'perpetual-fallback':
    'A key expires after its days, but app releases dated before the expiry keep working (updates end); renewing extends updates.',
};
const DEFAULT_SWAP_WINDOW_DAYS = 30;

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
  licenseModel: 'node-locked',
  expiryModel: 'time-limited',
  leaseMinutes: String(DEFAULT_LEASE_MINUTES),
  borrowMaxHours: '0',
  swapLimit: '',
  swapWindowDays: String(DEFAULT_SWAP_WINDOW_DAYS),
  trialDays: '0',
  features: '',
  entitlements: '',
  usageAllowance: '',
  usageRefillAmount: '',
  usageRefillDays: '',
  trialUsageAllowance: '0',
  isActive: true,
};

const optionalText = (n: number | null) => (n === null ? '' : String(n));

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
  licenseModel: p.licenseModel,
  expiryModel: p.expiryModel,
  leaseMinutes: String(p.leaseMinutes),
  borrowMaxHours: String(p.borrowMaxHours),
  swapLimit: p.swapLimit === null ? '' : String(p.swapLimit),
  swapWindowDays: String(p.swapWindowDays),
  trialDays: String(p.trialDays),
  features: p.features.join(', '),
  entitlements: p.entitlements.join(', '),
  usageAllowance: optionalText(p.usageAllowance),
  usageRefillAmount: optionalText(p.usageRefillAmount),
  usageRefillDays: optionalText(p.usageRefillDays),
  trialUsageAllowance: String(p.trialUsageAllowance),
  isActive: p.isActive,
});

/** The form's own rules: costs at least 1 here, though the API accepts 0. */
function formErrors(form: ProductForm): FieldErrors<ProductForm> {
  const errors: FieldErrors<ProductForm> = {};
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

/** An optional number field: empty is none (null). */
const optional = (text: string) => (text.trim() === '' ? null : whole(text, undefined));

/** The form as the API's product schema reads it. */
const productInput = (form: ProductForm) => ({
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
  licenseModel: form.licenseModel,
  expiryModel: form.expiryModel,
  leaseMinutes: whole(form.leaseMinutes, DEFAULT_LEASE_MINUTES),
  borrowMaxHours: whole(form.borrowMaxHours, 0),
  swapLimit: form.swapLimit.trim() === '' ? null : whole(form.swapLimit, undefined),
  swapWindowDays: whole(form.swapWindowDays, DEFAULT_SWAP_WINDOW_DAYS),
  trialDays: whole(form.trialDays, 0),
  features: form.features,
  entitlements: form.entitlements,
  usageAllowance: optional(form.usageAllowance),
  usageRefillAmount: optional(form.usageRefillAmount),
  usageRefillDays: optional(form.usageRefillDays),
  trialUsageAllowance: whole(form.trialUsageAllowance, 0),
  isActive: form.isActive,
});

export function ProductFormModal({ product, onClose }: { product: Product | null; onClose: () => void }) {
  const save = useSaveProduct();
  const editing = product !== null;
  const form = useForm<ProductForm>({
    initial: product ? formOf(product) : NEW_PRODUCT,
    // The form's own rules over the schema's, where both speak of one field.
    validate: (v) => ({ ...schemaErrors<ProductForm>(productInputSchema, productInput(v)), ...formErrors(v) }),
    submit: async (v) => {
      const saved = await save.mutateAsync({ id: product?._id ?? null, product: productInputSchema.parse(productInput(v)) });
      toast.success(editing ? `${saved.name} updated` : `${saved.name} created`);
      onClose();
    },
    onError: (err) => {
      toast.error(errorMessage(err, editing ? 'Failed to update product' : 'Failed to create product'));
      return null;
    },
  });
  const number = { type: 'number', min: 1, step: 1, inputMode: 'numeric' } as const;
  const floating = form.values.licenseModel === 'floating';

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
      <form id={formId} onSubmit={form.onSubmit} noValidate>
        <div className="form-grid">
          <Field label="Name" {...form.field('name')} maxLength={100} required autoFocus />
          <Field
            label="Key tag"
            {...form.field('keyTag')}
            // The key tag is forced to capitals as it is typed.
            onChange={(e) => form.set('keyTag', e.target.value.toUpperCase())}
            hint="2 to 10 capital letters or digits; every key starts with it"
            maxLength={10}
            pattern="[A-Z0-9]{2,10}"
            autoCapitalize="characters"
            required
          />
        </div>
        <TextAreaField label="Description" id={`${formId}-description`} rows={3} {...form.field('description')} maxLength={2000} required />
        <div className="form-grid">
          <SelectField label="Product type" id={`${formId}-type`} {...form.field('productType')}>
            <ProductTypeOptions />
          </SelectField>
          <Field label="Base cost (credits)" {...number} {...form.field('baseCreditCost')} required />
          <Field label="Credits per day" {...number} {...form.field('creditsPerDay')} />
        </div>
        <div className="form-grid">
          <Field label="Minimum days" {...number} {...form.field('minDays')} />
          <Field label="Maximum days" {...number} {...form.field('maxDays')} />
          <Field
            label={floating ? 'Seats' : 'Max activations'}
            {...number}
            {...form.field('maxActivations')}
            hint={floating ? 'Devices at a time per key' : 'Devices per key'}
          />
          <Field
            label="Offline token lifetime (hours)"
            {...number}
            min={MIN_OFFLINE_TOKEN_HOURS}
            max={MAX_OFFLINE_TOKEN_HOURS}
            {...form.field('offlineTokenHours')}
            hint="1 to 720 (30 days). A device that leaves a key keeps its slot this long."
          />
        </div>
        <fieldset className="form-fieldset">
          <legend>Licensing</legend>
          <div className="form-grid">
            <SelectField
              label="How keys end"
              id={`${formId}-expiry-model`}
              {...form.field('expiryModel')}
              hint={EXPIRY_MODEL_HINTS[form.values.expiryModel]}
            >
              <option value="time-limited">Time-limited (expire after their days)</option>
              <option value="perpetual">Perpetual (never expire)</option>
              <option value="perpetual-fallback">Perpetual fallback (older releases keep working)</option>
            </SelectField>
            <SelectField
              label="License model"
              id={`${formId}-model`}
              {...form.field('licenseModel')}
              hint={
                floating
                  ? 'Each key has seats; a device holds one while its heartbeat renews its lease.'
                  : 'Each key is bound to its devices until they are removed.'
              }
            >
              <option value="node-locked">Node-locked (fixed devices)</option>
              <option value="floating">Floating (seats with heartbeats)</option>
            </SelectField>
            {floating && (
              <>
                <Field
                  label="Seat lease (minutes)"
                  {...number}
                  max={MAX_LEASE_MINUTES}
                  {...form.field('leaseMinutes')}
                  hint="1 to 1440. A device that stops heartbeating frees its seat after this long."
                />
                <Field
                  label="Borrow maximum (hours)"
                  {...number}
                  min={0}
                  max={MAX_BORROW_HOURS}
                  {...form.field('borrowMaxHours')}
                  hint="0 to 720; 0: seats cannot be borrowed for offline use."
                />
              </>
            )}
          </div>
          <div className="form-grid">
            <Field
              label="Device swaps"
              {...number}
              min={0}
              max={MAX_SWAP_LIMIT}
              {...form.field('swapLimit')}
              hint="Removals and swaps a key may make per window; empty: no budget."
            />
            <Field label="Swap window (days)" {...number} max={MAX_SWAP_WINDOW_DAYS} {...form.field('swapWindowDays')} />
            <Field
              label="Trial days"
              {...number}
              min={0}
              max={MAX_TRIAL_DAYS}
              {...form.field('trialDays')}
              hint="0: no trial. Otherwise each device may start one trial this long."
            />
          </div>
        </fieldset>
        <fieldset className="form-fieldset">
          <legend>Entitlements and usage</legend>
          <Field
            label="Entitlements"
            {...form.field('entitlements')}
            hint="Lowercase names separated by commas, like pro, export-pdf. Every key has them; apps check them offline."
            autoCapitalize="none"
            spellCheck={false}
          />
          <div className="form-grid">
            <Field
              label="Usage allowance"
              {...number}
              min={0}
              max={MAX_USES}
              {...form.field('usageAllowance')}
              hint="Uses each key starts with; empty: not metered."
            />
            <Field
              label="Refill amount"
              {...number}
              max={MAX_USES}
              {...form.field('usageRefillAmount')}
              hint="Uses a key is refilled to each period; empty: no refill."
            />
            <Field
              label="Refill period (days)"
              {...number}
              max={MAX_REFILL_DAYS}
              {...form.field('usageRefillDays')}
              hint={`1 to ${MAX_REFILL_DAYS}; with a refill amount only.`}
            />
            <Field
              label="Trial uses"
              {...number}
              min={0}
              max={MAX_USES}
              {...form.field('trialUsageAllowance')}
              hint="Uses a trial key carries (at most the allowance); 0: none. They never refill."
            />
          </div>
        </fieldset>
        <Field label="Features" {...form.field('features')} hint="Separated by commas" />
        <CheckboxField label="Active (offered for purchase and generation)" {...form.checkbox('isActive')} />
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
