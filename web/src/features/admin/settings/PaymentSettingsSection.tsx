// The Payments section of the Settings tab: card top-ups on or off, their bounds, the quick amounts.
import { CheckboxField, Field } from '../../../components/ui/field';
import type { Form } from '../../../lib/form';
import type { Draft, PaymentField } from './draft';
import { formatUsd } from '../../../lib/format';
import { useT, type MessageId } from '../../../lib/i18n';

const FIELDS: Array<{ field: PaymentField; label: MessageId; hint: MessageId }> = [
  { field: 'minTopUpUsd', label: 'admin.settings.payments.min', hint: 'admin.settings.payments.minHint' },
  { field: 'maxTopUpUsd', label: 'admin.settings.payments.max', hint: 'admin.settings.payments.maxHint' },
  { field: 'quickTopUpAmounts', label: 'admin.settings.payments.quick', hint: 'admin.settings.payments.quickHint' },
  { field: 'firstTopUpHoldHours', label: 'admin.settings.payments.hold', hint: 'admin.settings.payments.holdHint' },
];

const isPaymentField = (name: string) => name.startsWith('payments.');

export function PaymentSettingsSection({ form }: { form: Form<Draft> }) {
  // The section's rules tie its fields together (the minimum below the maximum, the quick amounts
  // between them): any change in it answers every complaint in it.
  const changed = () => form.clearErrors(isPaymentField);
  const t = useT();
  return (
    <fieldset className="settings-section card">
      <legend>{t('admin.settings.payments.title')}</legend>
      <p className="muted small">{t('admin.settings.payments.description')}</p>
      <div className="form-grid">
        {FIELDS.map(({ field, label, hint }) => {
          const props = form.field(`payments.${field}`);
          return (
            <Field
              key={field}
              id={`setting-payments-${field}`}
              label={t(label)}
              type={field === 'quickTopUpAmounts' ? 'text' : 'number'}
              inputMode="decimal"
              min={field === 'firstTopUpHoldHours' ? 0 : 1}
              step={field === 'firstTopUpHoldHours' ? 1 : 0.01}
              hint={t(hint, { min: formatUsd(1), max: formatUsd(10_000) })}
              {...props}
              onChange={(e) => {
                props.onChange(e);
                changed();
              }}
            />
          );
        })}
      </div>
      <CheckboxField
        id="setting-payments-enabled"
        label={t('admin.settings.payments.enabled')}
        hint={t('admin.settings.payments.enabledHint')}
        {...form.checkbox('payments.cardTopUpsEnabled')}
        onChange={(e) => {
          form.set('payments.cardTopUpsEnabled', e.target.checked);
          changed();
        }}
      />
    </fieldset>
  );
}
