// The Settings tab: the six sections, the configuration summary, Save
// Settings (success, then a reload after 1 s) and Reset to Defaults behind a confirmation.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { settingsSchema, type Settings } from '../../../../worker/modules/settings/schemas';
import { Badge } from '../../components/ui/badge';
import { Card, EmptyState } from '../../components/ui/card';
import { Modal, ModalActions } from '../../components/ui/modal';
import { PageSpinner } from '../../components/ui/spinner';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { SETTINGS_RELOAD_DELAY_MS } from '../../lib/constants';
import type { TabProps } from './AdminPage';
import { adminKeys, resetSettings, saveSettings, useServerStatus, useSettings } from './api';
import { fromPaymentDraft, PaymentSettingsSection, toPaymentDraft, type PaymentDraft } from './PaymentSettingsSection';
import { asyncHandler } from '../../lib/async-handler';

type NumberField = { [K in keyof Settings]: Settings[K] extends number ? K : never }[keyof Settings];
type FlagField = { [K in keyof Settings]: Settings[K] extends boolean ? K : never }[keyof Settings];
/** The form's copy: numbers as typed, so a half-typed value is not rewritten under the cursor. */
type Draft = Record<NumberField, string> & Record<FlagField, boolean> & { payments: PaymentDraft };

const NUMBER_FIELDS: NumberField[] = [
  'usdToCreditRate',
  'maxKeysPerGeneration',
  'maxActivationsPerKey',
  'defaultDailyDiscount',
  'apiRateLimit',
  'lowBalanceThreshold',
  'keyExpiryGracePeriod',
  'sessionIdleDays',
];

function toDraft(s: Settings): Draft {
  const draft = { ...s } as unknown as Draft;
  for (const field of NUMBER_FIELDS) draft[field] = String(s[field]);
  draft.payments = toPaymentDraft(s.payments);
  return draft;
}

function fromDraft(d: Draft): unknown {
  const value: Record<string, unknown> = { ...d };
  for (const field of NUMBER_FIELDS) value[field] = d[field].trim() === '' ? undefined : Number(d[field]);
  value.payments = fromPaymentDraft(d.payments);
  return value;
}

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
        hint: 'Off the per-day part of the price for resellers, 0 to 90',
      },
    ],
    flags: [
      { field: 'enableDirectPurchases', label: 'Enable Direct Purchases', hint: 'Owners may buy keys for users' },
      { field: 'enableResellerPurchases', label: 'Enable Reseller Purchases', hint: 'Resellers may buy keys for their customers' },
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

export function SettingsTab({ user }: TabProps) {
  const isOwner = user.role === 'owner';
  const queryClient = useQueryClient();
  const settings = useSettings(isOwner);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState<'save' | 'reset' | null>(null);
  const [confirmReset, setConfirmReset] = useState(false);

  // The form starts from the settings once they arrive (set while rendering, so no frame shows an
  // empty form); after that the draft is the owner's until saved or reset.
  if (settings.data && !draft) setDraft(toDraft(settings.data));

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
  if (settings.isError && !draft) {
    return (
      <EmptyState title="Failed to load settings" icon="⚠">
        <button type="button" className="btn btn-secondary" onClick={() => void settings.refetch()}>
          Try again
        </button>
      </EmptyState>
    );
  }
  if (!draft) return <PageSpinner label="Loading settings…" />;

  const setNumber = (field: NumberField) => (e: React.ChangeEvent<HTMLInputElement>) => {
    setDraft({ ...draft, [field]: e.target.value });
    if (errors[field]) setErrors(({ [field]: _, ...rest }) => rest);
  };
  const setFlag = (field: FlagField) => (e: React.ChangeEvent<HTMLInputElement>) => setDraft({ ...draft, [field]: e.target.checked });

  async function onSave(e: FormEvent) {
    e.preventDefault();
    const parsed = settingsSchema.safeParse(fromDraft(draft!));
    if (!parsed.success) {
      const found: Record<string, string> = {};
      for (const issue of parsed.error.issues) {
        // A card top-up field is named within its section: payments.minTopUpUsd.
        const key = issue.path[0] === 'payments' ? issue.path.slice(0, 2).join('.') : String(issue.path[0]);
        found[key] ??= inFormWords(String(issue.path[0]), issue.message);
      }
      setErrors(found);
      toast.error(Object.values(found)[0]);
      return;
    }
    setErrors({});
    setBusy('save');
    try {
      await saveSettings(parsed.data);
      toast.success('Settings saved successfully');
      // The page reloads a second later, so every screen picks up the new values.
      setTimeout(() => window.location.reload(), SETTINGS_RELOAD_DELAY_MS);
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to save settings'));
      setBusy(null);
    }
  }

  async function onReset() {
    setBusy('reset');
    try {
      const defaults = await resetSettings();
      queryClient.setQueryData(adminKeys.settings, defaults);
      setDraft(toDraft(defaults));
      setErrors({});
      setConfirmReset(false);
      toast.success('Settings reset to defaults');
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to reset settings'));
    } finally {
      setBusy(null);
    }
  }

  return (
    <form className="settings-layout" onSubmit={asyncHandler(onSave)} noValidate aria-labelledby="settings-title">
      <div className="section-head">
        <div>
          <h2 id="settings-title">System Settings</h2>
          <p className="muted">Changes apply to every user within a few seconds of saving.</p>
        </div>
        <div className="button-row">
          <button type="button" className="btn btn-secondary" onClick={() => setConfirmReset(true)} disabled={busy !== null}>
            Reset to Defaults
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy !== null}>
            {busy === 'save' ? 'Saving…' : 'Save Settings'}
          </button>
        </div>
      </div>

      <div className="settings-columns">
        <div className="settings-sections">
          {SECTIONS.map((section) => (
            <Fieldset key={section.title} title={section.title} description={section.description}>
              <div className="form-grid">
                {section.numbers.map((n) => (
                  <div className="field" key={n.field}>
                    <label htmlFor={`setting-${n.field}`}>{n.label}</label>
                    <input
                      id={`setting-${n.field}`}
                      type="number"
                      min={n.min}
                      max={n.max}
                      step={n.step ?? 1}
                      inputMode={n.step ? 'decimal' : 'numeric'}
                      value={draft[n.field]}
                      onChange={setNumber(n.field)}
                      aria-invalid={errors[n.field] ? true : undefined}
                      aria-describedby={`setting-${n.field}-hint${errors[n.field] ? ` setting-${n.field}-error` : ''}`}
                    />
                    <div id={`setting-${n.field}-hint`} className="field-hint">
                      {n.hint}
                    </div>
                    {errors[n.field] && (
                      <div id={`setting-${n.field}-error`} className="field-error" role="alert">
                        {errors[n.field]}
                      </div>
                    )}
                  </div>
                ))}
              </div>
              {section.flags.map((f) => (
                <div className="setting-flag" key={f.field}>
                  <label className="checkbox">
                    <input
                      type="checkbox"
                      checked={draft[f.field]}
                      onChange={setFlag(f.field)}
                      aria-describedby={`setting-${f.field}-hint`}
                    />{' '}
                    {f.label}
                  </label>
                  <div id={`setting-${f.field}-hint`} className="field-hint">
                    {f.hint}
                  </div>
                </div>
              ))}
            </Fieldset>
          ))}
          <MailStatus />
          <PaymentSettingsSection
            draft={draft.payments}
            errors={errors}
            onChange={(payments) => {
              setDraft({ ...draft, payments });
              setErrors((all) => Object.fromEntries(Object.entries(all).filter(([key]) => !key.startsWith('payments.'))));
            }}
          />
        </div>

        <Card title="Configuration Summary" className="settings-summary">
          <dl className="info-list">
            <div>
              <dt>Exchange rate</dt>
              <dd>1 USD = {draft.usdToCreditRate || '—'} credits</dd>
            </div>
            <div>
              <dt>Max generation</dt>
              <dd>{draft.maxKeysPerGeneration || '—'} keys</dd>
            </div>
            <div>
              <dt>Status</dt>
              <dd>
                <Badge tone={draft.maintenanceMode ? 'yellow' : 'green'}>{draft.maintenanceMode ? 'Maintenance' : 'Active'}</Badge>
              </dd>
            </div>
          </dl>
        </Card>
      </div>

      <Modal
        open={confirmReset}
        size="sm"
        title="Reset to Defaults"
        onClose={() => setConfirmReset(false)}
        busy={busy === 'reset'}
        footer={
          <ModalActions
            onCancel={() => setConfirmReset(false)}
            busy={busy === 'reset'}
            label="Reset Settings"
            busyLabel="Resetting…"
            tone="danger"
            onAct={asyncHandler(onReset)}
          />
        }
      >
        <p>Every setting returns to its default value, and takes effect at once.</p>
        <p>
          <strong>This action cannot be undone.</strong>
        </p>
      </Modal>
    </form>
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
