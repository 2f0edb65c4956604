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
import { useForm, type FieldErrors } from '../../../lib/form';
import { adminSchemaErrors } from '../schema-messages';
import { useDeleteProduct, useSaveProduct } from './api';
import { FormattedMessage } from 'react-intl';
import { asyncHandler } from '../../../lib/async-handler';
import { translate, useT, type MessageId } from '../../../lib/i18n';
import { answerText } from '../../../lib/server-words';

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
const EXPIRY_MODEL_HINTS: Record<ExpiryModel, MessageId> = {
  'time-limited': 'admin.products.expiryHint.timeLimited',
  perpetual: 'admin.products.expiryHint.perpetual',
  'perpetual-fallback': 'admin.products.expiryHint.perpetualFallback',
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
  if (form.baseCreditCost.trim() === '') errors.baseCreditCost = translate('admin.products.baseCostRequired');
  else if (Number(form.baseCreditCost) < 1) errors.baseCreditCost = translate('admin.products.baseCostMin');
  if (form.creditsPerDay.trim() !== '' && Number(form.creditsPerDay) < 1) errors.creditsPerDay = translate('admin.products.perDayMin');
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
  const t = useT();
  const form = useForm<ProductForm>({
    initial: product ? formOf(product) : NEW_PRODUCT,
    // The form's own rules over the schema's, where both speak of one field.
    validate: (v) => ({ ...adminSchemaErrors<ProductForm>(productInputSchema, productInput(v)), ...formErrors(v) }),
    submit: async (v) => {
      const saved = await save.mutateAsync({ id: product?._id ?? null, product: productInputSchema.parse(productInput(v)) });
      toast.success(editing ? t('admin.products.updated', { name: saved.name }) : t('admin.products.created', { name: saved.name }));
      onClose();
    },
    onError: (err) => {
      toast.error(errorMessage(err, editing ? t('admin.products.updateFailed') : t('admin.products.createFailed')));
      return null;
    },
  });
  const number = { type: 'number', min: 1, step: 1, inputMode: 'numeric' } as const;
  const floating = form.values.licenseModel === 'floating';

  const formId = editing ? 'edit-product-form' : 'create-product-form';
  return (
    <FormModal
      open
      title={editing ? t('admin.products.editNamed', { name: product.name }) : t('admin.products.create')}
      onClose={onClose}
      busy={save.isPending}
      size="lg"
      formId={formId}
      submitLabel={editing ? t('admin.products.saveChanges') : t('admin.products.create')}
      busyLabel={t('admin.products.saving')}
    >
      <form id={formId} onSubmit={form.onSubmit} noValidate>
        <div className="form-grid">
          <Field label={t('admin.products.name')} {...form.field('name')} maxLength={100} required autoFocus />
          <Field
            label={t('admin.products.keyTag')}
            {...form.field('keyTag')}
            // The key tag is forced to capitals as it is typed.
            onChange={(e) => form.set('keyTag', e.target.value.toUpperCase())}
            hint={t('admin.products.keyTagHint')}
            maxLength={10}
            pattern="[A-Z0-9]{2,10}"
            autoCapitalize="characters"
            required
          />
        </div>
        <TextAreaField
          label={t('admin.products.description')}
          id={`${formId}-description`}
          rows={3}
          {...form.field('description')}
          maxLength={2000}
          required
        />
        <div className="form-grid">
          <SelectField label={t('admin.products.productType')} id={`${formId}-type`} {...form.field('productType')}>
            <ProductTypeOptions />
          </SelectField>
          <Field label={t('admin.products.baseCostCredits')} {...number} {...form.field('baseCreditCost')} required />
          <Field label={t('admin.products.creditsPerDay')} {...number} {...form.field('creditsPerDay')} />
        </div>
        <div className="form-grid">
          <Field label={t('admin.products.minDays')} {...number} {...form.field('minDays')} />
          <Field label={t('admin.products.maxDays')} {...number} {...form.field('maxDays')} />
          <Field
            label={floating ? t('admin.products.seats') : t('admin.products.maxActivations')}
            {...number}
            {...form.field('maxActivations')}
            hint={floating ? t('admin.products.seatsHint') : t('admin.products.devicesPerKey')}
          />
          <Field
            label={t('admin.products.offlineHours')}
            {...number}
            min={MIN_OFFLINE_TOKEN_HOURS}
            max={MAX_OFFLINE_TOKEN_HOURS}
            {...form.field('offlineTokenHours')}
            hint={t('admin.products.offlineHoursHint')}
          />
        </div>
        <fieldset className="form-fieldset">
          <legend>{t('admin.products.licensing')}</legend>
          <div className="form-grid">
            <SelectField
              label={t('admin.products.howKeysEnd')}
              id={`${formId}-expiry-model`}
              {...form.field('expiryModel')}
              hint={t(EXPIRY_MODEL_HINTS[form.values.expiryModel])}
            >
              <option value="time-limited">{t('admin.products.expiry.timeLimited')}</option>
              <option value="perpetual">{t('admin.products.expiry.perpetual')}</option>
              <option value="perpetual-fallback">{t('admin.products.expiry.perpetualFallback')}</option>
            </SelectField>
            <SelectField
              label={t('admin.products.licenseModel')}
              id={`${formId}-model`}
              {...form.field('licenseModel')}
              hint={floating ? t('admin.products.model.floatingHint') : t('admin.products.model.nodeLockedHint')}
            >
              <option value="node-locked">{t('admin.products.model.nodeLocked')}</option>
              <option value="floating">{t('admin.products.model.floating')}</option>
            </SelectField>
            {floating && (
              <>
                <Field
                  label={t('admin.products.leaseMinutes')}
                  {...number}
                  max={MAX_LEASE_MINUTES}
                  {...form.field('leaseMinutes')}
                  hint={t('admin.products.leaseMinutesHint')}
                />
                <Field
                  label={t('admin.products.borrowHours')}
                  {...number}
                  min={0}
                  max={MAX_BORROW_HOURS}
                  {...form.field('borrowMaxHours')}
                  hint={t('admin.products.borrowHoursHint')}
                />
              </>
            )}
          </div>
          <div className="form-grid">
            <Field
              label={t('admin.products.swapLimit')}
              {...number}
              min={0}
              max={MAX_SWAP_LIMIT}
              {...form.field('swapLimit')}
              hint={t('admin.products.swapLimitHint')}
            />
            <Field label={t('admin.products.swapWindow')} {...number} max={MAX_SWAP_WINDOW_DAYS} {...form.field('swapWindowDays')} />
            <Field
              label={t('admin.products.trialDays')}
              {...number}
              min={0}
              max={MAX_TRIAL_DAYS}
              {...form.field('trialDays')}
              hint={t('admin.products.trialDaysHint')}
            />
          </div>
        </fieldset>
        <fieldset className="form-fieldset">
          <legend>{t('admin.products.entitlementsAndUsage')}</legend>
          <Field
            label={t('admin.products.entitlements')}
            {...form.field('entitlements')}
            hint={t('admin.products.entitlementsHint')}
            autoCapitalize="none"
            spellCheck={false}
          />
          <div className="form-grid">
            <Field
              label={t('admin.products.usageAllowance')}
              {...number}
              min={0}
              max={MAX_USES}
              {...form.field('usageAllowance')}
              hint={t('admin.products.usageAllowanceHint')}
            />
            <Field
              label={t('admin.products.refillAmount')}
              {...number}
              max={MAX_USES}
              {...form.field('usageRefillAmount')}
              hint={t('admin.products.refillAmountHint')}
            />
            <Field
              label={t('admin.products.refillDays')}
              {...number}
              max={MAX_REFILL_DAYS}
              {...form.field('usageRefillDays')}
              hint={t('admin.products.refillDaysHint', { max: MAX_REFILL_DAYS })}
            />
            <Field
              label={t('admin.products.trialUses')}
              {...number}
              min={0}
              max={MAX_USES}
              {...form.field('trialUsageAllowance')}
              hint={t('admin.products.trialUsesHint')}
            />
          </div>
        </fieldset>
        <Field label={t('admin.products.features')} {...form.field('features')} hint={t('admin.products.featuresHint')} />
        <CheckboxField label={t('admin.products.activeOffered')} {...form.checkbox('isActive')} />
      </form>
    </FormModal>
  );
}

export function DeleteProductModal({ product, onClose }: { product: Product; onClose: () => void }) {
  const remove = useDeleteProduct();
  const t = useT();
  async function onConfirm() {
    try {
      const answer = await remove.mutateAsync(product._id);
      // A product with keys is deactivated instead; the server says so.
      if (answer.deleted) toast.success(t('admin.products.deleted', { name: product.name }));
      else toast.info(answerText(answer.message, t('admin.products.deactivated')), 8000);
      onClose();
    } catch (err) {
      toast.error(errorMessage(err, t('admin.products.deleteFailed')));
    }
  }
  return (
    <ConfirmModal
      title={t('admin.products.deleteTitle')}
      confirmLabel={t('admin.products.deleteTitle')}
      busyLabel={t('admin.products.deleting')}
      busy={remove.isPending}
      onConfirm={asyncHandler(onConfirm)}
      onClose={onClose}
    >
      <p>
        <FormattedMessage
          id="admin.products.deleteConfirm"
          values={{ name: product.name, strong: (chunks) => <strong>{chunks}</strong> }}
        />
      </p>
      <p className="muted">{t('admin.products.deleteKeeps')}</p>
    </ConfirmModal>
  );
}
