// The Key Transfers section of the Settings tab: whether customers may give a key to another
// account, and how often one key may change hands.
import { CheckboxField, Field } from '../../../components/ui/field';
import type { Form } from '../../../lib/form';
import type { Draft } from './draft';
import { useT } from '../../../lib/i18n';

export function KeyTransferSettingsSection({ form }: { form: Form<Draft> }) {
  const t = useT();
  return (
    <fieldset className="settings-section card">
      <legend>{t('admin.settings.transfers.title')}</legend>
      <p className="muted small">{t('admin.settings.transfers.description')}</p>
      <CheckboxField
        id="setting-key-transfers-enabled"
        label={t('admin.settings.transfers.enabled')}
        hint={t('admin.settings.transfers.enabledHint')}
        {...form.checkbox('keyTransfers.enabled')}
      />
      <div className="form-grid">
        <Field
          id="setting-key-transfers-max"
          label={t('admin.settings.transfers.max')}
          type="number"
          inputMode="numeric"
          min={0}
          max={100}
          step={1}
          hint={t('admin.settings.transfers.maxHint')}
          {...form.field('keyTransfers.maxPerKey')}
        />
      </div>
    </fieldset>
  );
}
