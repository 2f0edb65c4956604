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
import { useCurrentUser } from '../../../lib/session';
import { resetSettings, saveSettings, settingsKeys, useServerStatus, useSettings } from './api';
import { fromDraft, toDraft, type Draft, type FlagField, type NumberField } from './draft';
import { PaymentSettingsSection } from './PaymentSettingsSection';
import { KeyTransferSettingsSection } from './KeyTransferSettingsSection';
import { RenewalSettingsSection } from './RenewalSettingsSection';
import { DataExportSection } from './DataExportSection';

type NumberSpec = { field: NumberField; label: string; min: number; max?: number; step?: number; hint: string };
type FlagSpec = { field: FlagField; label: string; hint: string };
type Section = { title: string; description: string; numbers: NumberSpec[]; flags: FlagSpec[] };

const SECTIONS: Section[] = [
  {
    title: 'Exchange',
    description: 'How USD turns into credits.',
    numbers: [{ field: 'usdToCreditRate', label: 'USD to Credit Rate', min: 1, max: 1000, hint: 'Credits per 1 USD, 1 to 1000' }],
    flags: [],
  },
  {
    title: 'Key Generation',
    description: 'Limits on making keys.',
    numbers: [
      { field: 'maxKeysPerGeneration', label: 'Max Keys per Generation', min: 1, max: 1000, hint: '1 to 1000 keys in one request' },
      {
        field: 'maxActivationsPerKey',
        label: 'Max Activations per Key',
        min: 1,
        max: 100,
        hint: 'The most devices a product may allow per key, 1 to 100',
      },
    ],
    flags: [],
  },
  {
    title: 'Purchase',
    description: 'Who may buy for others, and the resellers’ price.',
    numbers: [
      {
        field: 'defaultDailyDiscount',
        label: 'Reseller Daily Discount (%)',
        min: 0,
        max: 90,
        hint: 'Off the per-day part of the price for resellers in no tier (Resellers tab), 0 to 90',
      },
    ],
    flags: [
      { field: 'enableDirectPurchases', label: 'Enable Direct Purchases', hint: 'Owners may buy keys for users' },
      { field: 'enableResellerPurchases', label: 'Enable Reseller Purchases', hint: 'Resellers may buy keys for their customers' },
      {
        field: 'resellersSellToOwnCustomersOnly',
        label: 'Resellers Sell to Their Own Customers Only',
        hint: 'A reseller may buy keys only for customers who registered through their link or were given to them',
      },
    ],
  },
  {
    title: 'System',
    description: 'Access to KeyPanel.',
    numbers: [
      {
        field: 'apiRateLimit',
        label: 'API Rate Limit (per hour per IP)',
        min: 10,
        max: 10000,
        hint: 'Sign-in, registration and password reset attempts, 10 to 10000',
      },
      {
        field: 'sessionIdleDays',
        label: 'Session Idle Timeout (days)',
        min: 1,
        max: 90,
        hint: 'Sign out a session unused for this many days, 1 to 90',
      },
    ],
    flags: [
      { field: 'maintenanceMode', label: 'Maintenance Mode', hint: 'Only owners can use KeyPanel; licensed apps keep working' },
      { field: 'registrationEnabled', label: 'Registration Enabled', hint: 'New customers may create accounts' },
    ],
  },
  {
    title: 'Notification',
    description: 'Warnings shown to customers.',
    numbers: [
      {
        field: 'lowBalanceThreshold',
        label: 'Low Balance Threshold (USD)',
        min: 0,
        step: 0.01,
        hint: 'Warn when the USD balance is below this',
      },
    ],
    flags: [
      { field: 'notifyLowBalance', label: 'Notify Low Balance', hint: 'Show customers and resellers a low-balance warning' },
      {
        field: 'emailNotificationsEnabled',
        label: 'Email Notifications Enabled',
        hint: 'Kept for a mail integration; KeyPanel sends no notification email yet',
      },
    ],
  },
  {
    title: 'Advanced',
    description: 'How keys age.',
    numbers: [
      {
        field: 'keyExpiryGracePeriod',
        label: 'Key Expiry Grace Period (days)',
        min: 0,
        max: 365,
        hint: 'Days a key keeps working after it expires, 0 to 365',
      },
    ],
    flags: [{ field: 'autoCleanupExpiredKeys', label: 'Auto Cleanup Expired Keys', hint: 'Delete keys expired for more than 30 days' }],
  },
];

const LABELS = Object.fromEntries(SECTIONS.flatMap((s) => [...s.numbers, ...s.flags]).map((f) => [f.field, f.label])) as Record<
  keyof Settings,
  string
>;

/** The API's message names the field as the API does; the form names it as its label does. */
const inFormWords = (field: string, message: string) =>
  field in LABELS ? message.replace(field, LABELS[field as keyof Settings]) : message;

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

  useEffect(() => {
    if (settings.isError) toast.error('Failed to load settings');
  }, [settings.isError]);

  if (!isOwner) {
    return (
      <EmptyState title="Access denied" icon="🔒">
        <p className="muted">Only owners can change the system settings.</p>
      </EmptyState>
    );
  }
  // The form starts from the settings as loaded; after that the copy is the owner's until saved or reset.
  return (
    <QueryState query={settings} loading="Loading settings…" failed="Failed to load settings" keepDataOnError>
      {(data) => <SettingsForm settings={data} />}
    </QueryState>
  );
}

function SettingsForm({ settings }: { settings: Settings }) {
  const queryClient = useQueryClient();
  const [resetting, setResetting] = useState(false);
  const [confirmReset, setConfirmReset] = useState(false);
  const form = useForm<Draft>({
    initial: toDraft(settings),
    validate: draftErrors,
    onInvalid: (errors) => toast.error(Object.values(errors)[0]),
    submit: async (draft) => {
      await saveSettings(settingsSchema.parse(fromDraft(draft)));
      toast.success('Settings saved successfully');
      // The page reloads a second later, so every screen picks up the new values.
      setTimeout(() => window.location.reload(), SETTINGS_RELOAD_DELAY_MS);
    },
    onError: (err) => {
      toast.error(errorMessage(err, 'Failed to save settings'));
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
      toast.success('Settings reset to defaults');
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to reset settings'));
    } finally {
      setResetting(false);
    }
  }

  return (
    <>
      <form className="settings-layout" onSubmit={form.onSubmit} noValidate aria-labelledby="settings-title">
        <div className="section-head">
          <div>
            <h2 id="settings-title">System Settings</h2>
            <p className="muted">Changes apply to every user within a few seconds of saving.</p>
          </div>
          <div className="button-row">
            <button type="button" className="btn btn-secondary" onClick={() => setConfirmReset(true)} disabled={busy}>
              Reset to Defaults
            </button>
            <button type="submit" className="btn btn-primary" disabled={busy}>
              {saving ? 'Saving…' : 'Save Settings'}
            </button>
          </div>
        </div>

        <div className="settings-columns">
          <div className="settings-sections">
            {SECTIONS.map((section) => (
              <Fieldset key={section.title} title={section.title} description={section.description}>
                <div className="form-grid">
                  {section.numbers.map((n) => (
                    <Field
                      key={n.field}
                      id={`setting-${n.field}`}
                      label={n.label}
                      type="number"
                      min={n.min}
                      max={n.max}
                      step={n.step ?? 1}
                      inputMode={n.step ? 'decimal' : 'numeric'}
                      hint={n.hint}
                      {...form.field(n.field)}
                    />
                  ))}
                </div>
                {section.flags.map((f) => (
                  <CheckboxField key={f.field} id={`setting-${f.field}`} label={f.label} hint={f.hint} {...form.checkbox(f.field)} />
                ))}
              </Fieldset>
            ))}
            <MailStatus />
            <PaymentSettingsSection form={form} />
            <KeyTransferSettingsSection form={form} />
            <RenewalSettingsSection form={form} />
          </div>

          <Card title="Configuration Summary" className="settings-summary">
            <dl className="info-list">
              <Detail label="Exchange rate">1 USD = {draft.usdToCreditRate || '—'} credits</Detail>
              <Detail label="Max generation">{draft.maxKeysPerGeneration || '—'} keys</Detail>
              <Detail label="Status">
                <Badge tone={draft.maintenanceMode ? 'yellow' : 'green'}>{draft.maintenanceMode ? 'Maintenance' : 'Active'}</Badge>
              </Detail>
            </dl>
          </Card>
        </div>

        {confirmReset && (
          <ConfirmModal
            title="Reset to Defaults"
            confirmLabel="Reset Settings"
            busyLabel="Resetting…"
            busy={resetting}
            onConfirm={asyncHandler(onReset)}
            onClose={() => setConfirmReset(false)}
          >
            <p>Every setting returns to its default value, and takes effect at once.</p>
            <p>
              <strong>This action cannot be undone.</strong>
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
  if (!data?.mail.message) return null;
  return (
    <div className="notice notice-warning" role="status" data-testid="mail-not-configured">
      <strong>No mail service.</strong> {data.mail.message}
    </div>
  );
}
