// The Renewals section of the Settings tab: whether customers may switch auto-renewal on, and how
// many days before a key expires the shop renews it from their credits.
import { CheckboxField, Field } from '../../../components/ui/field';
import type { Form } from '../../../lib/form';
import type { Draft } from './draft';

export function RenewalSettingsSection({ form }: { form: Form<Draft> }) {
  return (
    <fieldset className="settings-section card">
      <legend>Renewals</legend>
      <p className="muted small">Customers renew their keys from My Keys: the same key runs for more days, paid with their credits.</p>
      <CheckboxField
        id="setting-auto-renew-enabled"
        label="Auto-renewal Enabled"
        hint="Customers may have a key renewed from their credits before it expires; when off, no key is renewed automatically"
        {...form.checkbox('renewals.autoRenewEnabled')}
      />
      <div className="form-grid">
        <Field
          id="setting-auto-renew-days-before"
          label="Renew Days Before Expiry"
          type="number"
          inputMode="numeric"
          min={1}
          max={30}
          step={1}
          hint="An auto-renewing key is renewed this many days before it expires (1 to 30)"
          {...form.field('renewals.autoRenewDaysBefore')}
        />
      </div>
    </fieldset>
  );
}
