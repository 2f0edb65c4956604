// The Renewals section of the Settings tab: whether customers may switch auto-renewal on, and how
// many days before a key expires the shop renews it from their credits.
import { CheckboxField, Field } from '../../../components/ui/field';
import type { Form } from '../../../lib/form';
import type { Draft } from './draft';
import { useT } from '../../../lib/i18n';

export function RenewalSettingsSection({ form }: { form: Form<Draft> }) {
  const t = useT();
  return (
    <fieldset className="settings-section card">
      <legend>{t('admin.settings.renewals.title')}</legend>
      <p className="muted small">{t('admin.settings.renewals.description')}</p>
      <CheckboxField
        id="setting-auto-renew-enabled"
        label={t('admin.settings.renewals.enabled')}
        hint={t('admin.settings.renewals.enabledHint')}
        {...form.checkbox('renewals.autoRenewEnabled')}
      />
      <div className="form-grid">
        <Field
          id="setting-auto-renew-days-before"
          label={t('admin.settings.renewals.daysBefore')}
          type="number"
          inputMode="numeric"
          min={1}
          max={30}
          step={1}
          hint={t('admin.settings.renewals.daysBeforeHint')}
          {...form.field('renewals.autoRenewDaysBefore')}
        />
      </div>
    </fieldset>
  );
}
