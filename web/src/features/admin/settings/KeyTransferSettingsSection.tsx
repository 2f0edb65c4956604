// The Key Transfers section of the Settings tab: whether customers may give a key to another
// account, and how often one key may change hands.
import { CheckboxField, Field } from '../../../components/ui/field';
import type { Form } from '../../../lib/form';
import type { Draft } from './draft';

export function KeyTransferSettingsSection({ form }: { form: Form<Draft> }) {
  return (
    <fieldset className="settings-section card">
      <legend>Key Transfers</legend>
      <p className="muted small">Customers give a key, its devices and its remaining time to another account from My Keys.</p>
      <CheckboxField
        id="setting-key-transfers-enabled"
        label="Key Transfers Enabled"
        hint="Customers may transfer their keys, and resellers the keys they bought for customers"
        {...form.checkbox('keyTransfers.enabled')}
      />
      <div className="form-grid">
        <Field
          id="setting-key-transfers-max"
          label="Transfers per Key"
          type="number"
          inputMode="numeric"
          min={0}
          max={100}
          step={1}
          hint="How many times one key may be transferred, 0 for no limit"
          {...form.field('keyTransfers.maxPerKey')}
        />
      </div>
    </fieldset>
  );
}
