// The Settings tab: the six sections, the configuration summary, Save
// Settings (success, then a reload after 1 s) and Reset to Defaults behind a confirmation.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { settingsSchema, type Settings } from '../../../../../worker/modules/settings/schemas';
import { Badge } from '../../../components/ui/badge';
import { Card, EmptyState } from '../../../components/ui/card';
import { ConfirmModal } from '../../../components/ui/confirm-modal';
import { Detail } from '../../../components/ui/detail';
import { CheckboxField, Field } from '../../../components/ui/field';
import { QueryState } from '../../../components/ui/query-state';
import { toast } from '../../../components/ui/toast';
import { errorMessage } from '../../../lib/api';
import { asyncHandler } from '../../../lib/async-handler';
import { SETTINGS_RELOAD_DELAY_MS } from '../../../lib/constants';
import { useForm, type FieldErrors } from '../../../lib/form';
import { translate, useT, type MessageId } from '../../../lib/i18n';
import { useCurrentUser } from '../../../lib/session';
import { resetSettings, saveSettings, settingsKeys, useServerStatus, useSettings } from './api';
import { fromDraft, toDraft, type Draft, type FlagField, type NumberField } from './draft';
import { PaymentSettingsSection } from './PaymentSettingsSection';
import { KeyTransferSettingsSection } from './KeyTransferSettingsSection';
import { RenewalSettingsSection } from './RenewalSettingsSection';
import { DataExportSection } from './DataExportSection';
import { schemaMessage } from '../schema-messages';

type NumberSpec = { field: NumberField; label: MessageId; min: number; max?: number; step?: number; hint: MessageId };
type FlagSpec = { field: FlagField; label: MessageId; hint: MessageId };
type Section = { title: MessageId; description: MessageId; numbers: NumberSpec[]; flags: FlagSpec[] };

const SECTIONS: Section[] = [
  {
    title: 'admin.settings.section.exchange.title',
    description: 'admin.settings.section.exchange.description',
    numbers: [
      {
        field: 'usdToCreditRate',
        label: 'admin.settings.usdToCreditRate.label',
        min: 1,
        max: 1000,
        hint: 'admin.settings.usdToCreditRate.hint',
      },
    ],
    flags: [],
  },
  {
    title: 'admin.settings.section.keyGeneration.title',
    description: 'admin.settings.section.keyGeneration.description',
    numbers: [
      {
        field: 'maxKeysPerGeneration',
        label: 'admin.settings.maxKeysPerGeneration.label',
        min: 1,
        max: 1000,
        hint: 'admin.settings.maxKeysPerGeneration.hint',
      },
      {
        field: 'maxActivationsPerKey',
        label: 'admin.settings.maxActivationsPerKey.label',
        min: 1,
        max: 100,
        hint: 'admin.settings.maxActivationsPerKey.hint',
      },
    ],
    flags: [],
  },
  {
    title: 'admin.settings.section.purchase.title',
    description: 'admin.settings.section.purchase.description',
    numbers: [
      {
        field: 'defaultDailyDiscount',
        label: 'admin.settings.defaultDailyDiscount.label',
        min: 0,
        max: 90,
        hint: 'admin.settings.defaultDailyDiscount.hint',
      },
    ],
    flags: [
      {
        field: 'enableDirectPurchases',
        label: 'admin.settings.enableDirectPurchases.label',
        hint: 'admin.settings.enableDirectPurchases.hint',
      },
      {
        field: 'enableResellerPurchases',
        label: 'admin.settings.enableResellerPurchases.label',
        hint: 'admin.settings.enableResellerPurchases.hint',
      },
      {
        field: 'resellersSellToOwnCustomersOnly',
        label: 'admin.settings.resellersSellToOwnCustomersOnly.label',
        hint: 'admin.settings.resellersSellToOwnCustomersOnly.hint',
      },
    ],
  },
  {
    title: 'admin.settings.section.system.title',
    description: 'admin.settings.section.system.description',
    numbers: [
      {
        field: 'apiRateLimit',
        label: 'admin.settings.apiRateLimit.label',
        min: 10,
        max: 10000,
        hint: 'admin.settings.apiRateLimit.hint',
      },
      {
        field: 'sessionIdleDays',
        label: 'admin.settings.sessionIdleDays.label',
        min: 1,
        max: 90,
        hint: 'admin.settings.sessionIdleDays.hint',
      },
    ],
    flags: [
      { field: 'maintenanceMode', label: 'admin.settings.maintenanceMode.label', hint: 'admin.settings.maintenanceMode.hint' },
      { field: 'registrationEnabled', label: 'admin.settings.registrationEnabled.label', hint: 'admin.settings.registrationEnabled.hint' },
    ],
  },
  {
    title: 'admin.settings.section.notification.title',
    description: 'admin.settings.section.notification.description',
    numbers: [
      {
        field: 'lowBalanceThreshold',
        label: 'admin.settings.lowBalanceThreshold.label',
        min: 0,
        step: 0.01,
        hint: 'admin.settings.lowBalanceThreshold.hint',
      },
    ],
    flags: [
      { field: 'notifyLowBalance', label: 'admin.settings.notifyLowBalance.label', hint: 'admin.settings.notifyLowBalance.hint' },
      {
        field: 'emailNotificationsEnabled',
        label: 'admin.settings.emailNotificationsEnabled.label',
        hint: 'admin.settings.emailNotificationsEnabled.hint',
      },
    ],
  },
  {
    title: 'admin.settings.section.advanced.title',
    description: 'admin.settings.section.advanced.description',
    numbers: [
      {
        field: 'keyExpiryGracePeriod',
        label: 'admin.settings.keyExpiryGracePeriod.label',
        min: 0,
        max: 365,
        hint: 'admin.settings.keyExpiryGracePeriod.hint',
      },
    ],
    flags: [
      {
        field: 'autoCleanupExpiredKeys',
        label: 'admin.settings.autoCleanupExpiredKeys.label',
        hint: 'admin.settings.autoCleanupExpiredKeys.hint',
      },
    ],
  },
];

const LABELS = Object.fromEntries(SECTIONS.flatMap((s) => [...s.numbers, ...s.flags]).map((f) => [f.field, f.label])) as Record<
  keyof Settings,
  MessageId
>;

/** The API's message names the field as the API does; the form names it as its label does, in the language in force. */
const inFormWords = (field: string, message: string) =>
  field in LABELS ? schemaMessage(message, { [field]: translate(LABELS[field as keyof Settings]) }) : schemaMessage(message);

function Fieldset({ title, description, children }: { title: string; description: string; children: ReactNode }) {
  return (
    <fieldset className="settings-section card">
      <legend>{title}</legend>
      <p className="muted small">{description}</p>
      {children}
    </fieldset>
  );
}

/** The settings' refusals, each on its field (a card top-up field within its section: payments.minTopUpUsd). */
function draftErrors(draft: Draft): FieldErrors<Draft> {
  const parsed = settingsSchema.safeParse(fromDraft(draft));
  if (parsed.success) return {};
  const found: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const key = ['payments', 'keyTransfers', 'renewals'].includes(String(issue.path[0]))
      ? issue.path.slice(0, 2).join('.')
      : String(issue.path[0]);
    found[key] ??= inFormWords(String(issue.path[0]), issue.message);
  }
  return found;
}

export function SettingsTab() {
  const user = useCurrentUser()!;
  const isOwner = user.role === 'owner';
  const settings = useSettings(isOwner);
  const t = useT();

  useEffect(() => {
    if (settings.isError) toast.error(t('admin.settings.loadFailed'));
  }, [settings.isError, t]);

  if (!isOwner) {
    return (
      <EmptyState title={t('admin.settings.accessDenied')} icon="🔒">
        <p className="muted">{t('admin.settings.ownersOnly')}</p>
      </EmptyState>
    );
  }
  // The form starts from the settings as loaded; after that the copy is the owner's until saved or reset.
  return (
    <QueryState query={settings} loading={t('admin.settings.loading')} failed={t('admin.settings.loadFailed')} keepDataOnError>
      {(data) => <SettingsForm settings={data} />}
    </QueryState>
  );
}

function SettingsForm({ settings }: { settings: Settings }) {
  const queryClient = useQueryClient();
  const [resetting, setResetting] = useState(false);
  const [confirmReset, setConfirmReset] = useState(false);
  const t = useT();
  const form = useForm<Draft>({
    initial: toDraft(settings),
    validate: draftErrors,
    onInvalid: (errors) => toast.error(Object.values(errors)[0]),
    submit: async (draft) => {
      await saveSettings(settingsSchema.parse(fromDraft(draft)));
      toast.success(t('admin.settings.saved'));
      // The page reloads a second later, so every screen picks up the new values.
      setTimeout(() => window.location.reload(), SETTINGS_RELOAD_DELAY_MS);
    },
    onError: (err) => {
      toast.error(errorMessage(err, t('admin.settings.saveFailed')));
      return null;
    },
  });
  // Saved: the form stays busy until the page reloads.
  const saving = form.status !== 'idle';
  const busy = saving || resetting;
  const draft = form.values;

  async function onReset() {
    setResetting(true);
    try {
      const defaults = await resetSettings();
      queryClient.setQueryData(settingsKeys.all, defaults);
      form.reset(toDraft(defaults));
      setConfirmReset(false);
      toast.success(t('admin.settings.resetDone'));
    } catch (err) {
      toast.error(errorMessage(err, t('admin.settings.resetFailed')));
    } finally {
      setResetting(false);
    }
  }

  return (
    <>
      <form className="settings-layout" onSubmit={form.onSubmit} noValidate aria-labelledby="settings-title">
        <div className="section-head">
          <div>
            <h2 id="settings-title">{t('admin.settings.title')}</h2>
            <p className="muted">{t('admin.settings.subtitle')}</p>
          </div>
          <div className="button-row">
            <button type="button" className="btn btn-secondary" onClick={() => setConfirmReset(true)} disabled={busy}>
              {t('admin.settings.reset')}
            </button>
            <button type="submit" className="btn btn-primary" disabled={busy}>
              {saving ? t('admin.settings.saving') : t('admin.settings.save')}
            </button>
          </div>
        </div>

        <div className="settings-columns">
          <div className="settings-sections">
            {SECTIONS.map((section) => (
              <Fieldset key={section.title} title={t(section.title)} description={t(section.description)}>
                <div className="form-grid">
                  {section.numbers.map((n) => (
                    <Field
                      key={n.field}
                      id={`setting-${n.field}`}
                      label={t(n.label)}
                      type="number"
                      min={n.min}
                      max={n.max}
                      step={n.step ?? 1}
                      inputMode={n.step ? 'decimal' : 'numeric'}
                      hint={t(n.hint)}
                      {...form.field(n.field)}
                    />
                  ))}
                </div>
                {section.flags.map((f) => (
                  <CheckboxField key={f.field} id={`setting-${f.field}`} label={t(f.label)} hint={t(f.hint)} {...form.checkbox(f.field)} />
                ))}
              </Fieldset>
            ))}
            <MailStatus />
            <PaymentSettingsSection form={form} />
            <KeyTransferSettingsSection form={form} />
            <RenewalSettingsSection form={form} />
          </div>

          <Card title={t('admin.settings.summary')} className="settings-summary">
            <dl className="info-list">
              <Detail label={t('admin.settings.exchangeRate')}>
                {t('admin.settings.exchangeRateValue', { rate: draft.usdToCreditRate || '—' })}
              </Detail>
              <Detail label={t('admin.settings.maxGeneration')}>
                {t('admin.settings.maxGenerationValue', { count: draft.maxKeysPerGeneration || '—' })}
              </Detail>
              <Detail label={t('admin.settings.status')}>
                <Badge tone={draft.maintenanceMode ? 'yellow' : 'green'}>
                  {draft.maintenanceMode ? t('admin.settings.maintenance') : t('admin.settings.active')}
                </Badge>
              </Detail>
            </dl>
          </Card>
        </div>

        {confirmReset && (
          <ConfirmModal
            title={t('admin.settings.reset')}
            confirmLabel={t('admin.settings.resetSubmit')}
            busyLabel={t('admin.settings.resetting')}
            busy={resetting}
            onConfirm={asyncHandler(onReset)}
            onClose={() => setConfirmReset(false)}
          >
            <p>{t('admin.settings.resetWarning')}</p>
            <p>
              <strong>{t('admin.settings.cannotUndo')}</strong>
            </p>
          </ConfirmModal>
        )}
      </form>
      <DataExportSection />
    </>
  );
}

/** Without a mail service a deployed server sends no reset or verification link: the owner is told why. */
function MailStatus() {
  const { data } = useServerStatus();
  const t = useT();
  if (!data?.mail.message) return null;
  return (
    <div className="notice notice-warning" role="status" data-testid="mail-not-configured">
      <strong>{t('admin.settings.noMail')}</strong> {data.mail.message}
    </div>
  );
}
