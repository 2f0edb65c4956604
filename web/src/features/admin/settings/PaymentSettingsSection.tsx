// The Payments section of the Settings tab: card top-ups on or off, their bounds, the quick amounts.
import { CheckboxField, Field } from '../../../components/ui/field';
import type { Form } from '../../../lib/form';
import type { Draft, PaymentField } from './draft';

const FIELDS: Array<{ field: PaymentField; label: string; hint: string }> = [
  { field: 'minTopUpUsd', label: 'Minimum Top-up (USD)', hint: 'The smallest card payment, from $1' },
  { field: 'maxTopUpUsd', label: 'Maximum Top-up (USD)', hint: 'The largest card payment, up to $10,000' },
  { field: 'quickTopUpAmounts', label: 'Quick Amounts (USD)', hint: 'Up to 6 amounts offered as buttons, separated by commas' },
  {
    field: 'firstTopUpHoldHours',
    label: 'Hold First Top-ups (hours)',
    hint: "A first-time payer's card top-ups wait this long before they can be exchanged (0: no hold)",
  },
];

const isPaymentField = (name: string) => name.startsWith('payments.');

export function PaymentSettingsSection({ form }: { form: Form<Draft> }) {
  // The section's rules tie its fields together (the minimum below the maximum, the quick amounts
  // between them): any change in it answers every complaint in it.
  const changed = () => form.clearErrors(isPaymentField);
  return (
    <fieldset className="settings-section card">
      <legend>Payments</legend>
      <p className="muted small">
        Card top-ups of the USD balance through Stripe Checkout. They also need the Stripe keys on the server (docs/payments.md).
      </p>
      <div className="form-grid">
        {FIELDS.map(({ field, label, hint }) => {
          const props = form.field(`payments.${field}`);
          return (
            <Field
              key={field}
              id={`setting-payments-${field}`}
              label={label}
              type={field === 'quickTopUpAmounts' ? 'text' : 'number'}
              inputMode="decimal"
              min={field === 'firstTopUpHoldHours' ? 0 : 1}
              step={field === 'firstTopUpHoldHours' ? 1 : 0.01}
              hint={hint}
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
        label="Card Top-ups Enabled"
        hint="Customers may add USD by card on the Add Balance page"
        {...form.checkbox('payments.cardTopUpsEnabled')}
        onChange={(e) => {
          form.set('payments.cardTopUpsEnabled', e.target.checked);
          changed();
        }}
      />
    </fieldset>
  );
}
