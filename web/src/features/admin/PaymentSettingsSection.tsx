// The Payments section of the Settings tab: card top-ups on or off, their bounds, the quick amounts.
import type { PaymentSettings } from '../../../../worker/modules/settings/schemas';

/** The form's copy: amounts as typed; the quick amounts as one comma-separated text. */
export type PaymentDraft = {
  cardTopUpsEnabled: boolean;
  minTopUpUsd: string;
  maxTopUpUsd: string;
  quickTopUpAmounts: string;
  firstTopUpHoldHours: string;
};

export const toPaymentDraft = (p: PaymentSettings): PaymentDraft => ({
  cardTopUpsEnabled: p.cardTopUpsEnabled,
  minTopUpUsd: String(p.minTopUpUsd),
  maxTopUpUsd: String(p.maxTopUpUsd),
  quickTopUpAmounts: p.quickTopUpAmounts.join(', '),
  firstTopUpHoldHours: String(p.firstTopUpHoldHours),
});

const amount = (text: string) => (text.trim() === '' ? undefined : Number(text));

export const fromPaymentDraft = (d: PaymentDraft): unknown => ({
  cardTopUpsEnabled: d.cardTopUpsEnabled,
  minTopUpUsd: amount(d.minTopUpUsd),
  maxTopUpUsd: amount(d.maxTopUpUsd),
  quickTopUpAmounts: d.quickTopUpAmounts
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean)
    .map(Number),
  firstTopUpHoldHours: amount(d.firstTopUpHoldHours),
});

type Props = { draft: PaymentDraft; errors: Record<string, string>; onChange: (draft: PaymentDraft) => void };

const FIELDS: Array<{ field: 'minTopUpUsd' | 'maxTopUpUsd' | 'quickTopUpAmounts' | 'firstTopUpHoldHours'; label: string; hint: string }> = [
  { field: 'minTopUpUsd', label: 'Minimum Top-up (USD)', hint: 'The smallest card payment, from $1' },
  { field: 'maxTopUpUsd', label: 'Maximum Top-up (USD)', hint: 'The largest card payment, up to $10,000' },
  { field: 'quickTopUpAmounts', label: 'Quick Amounts (USD)', hint: 'Up to 6 amounts offered as buttons, separated by commas' },
  {
    field: 'firstTopUpHoldHours',
    label: 'Hold First Top-ups (hours)',
    hint: "A first-time payer's card top-ups wait this long before they can be exchanged (0: no hold)",
  },
];

export function PaymentSettingsSection({ draft, errors, onChange }: Props) {
  return (
    <fieldset className="settings-section card">
      <legend>Payments</legend>
      <p className="muted small">
        Card top-ups of the USD balance through Stripe Checkout. They also need the Stripe keys on the server (docs/payments.md).
      </p>
      <div className="form-grid">
        {FIELDS.map(({ field, label, hint }) => {
          const id = `setting-payments-${field}`;
          const error = errors[`payments.${field}`];
          return (
            <div className="field" key={field}>
              <label htmlFor={id}>{label}</label>
              <input
                id={id}
                type={field === 'quickTopUpAmounts' ? 'text' : 'number'}
                inputMode="decimal"
                min={field === 'firstTopUpHoldHours' ? 0 : 1}
                step={field === 'firstTopUpHoldHours' ? 1 : 0.01}
                value={draft[field]}
                onChange={(e) => onChange({ ...draft, [field]: e.target.value })}
                aria-invalid={error ? true : undefined}
                aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
              />
              <div id={`${id}-hint`} className="field-hint">
                {hint}
              </div>
              {error && (
                <div id={`${id}-error`} className="field-error" role="alert">
                  {error}
                </div>
              )}
            </div>
          );
        })}
      </div>
      <div className="setting-flag">
        <label className="checkbox">
          <input
            type="checkbox"
            checked={draft.cardTopUpsEnabled}
            onChange={(e) => onChange({ ...draft, cardTopUpsEnabled: e.target.checked })}
            aria-describedby="setting-payments-enabled-hint"
          />{' '}
          Card Top-ups Enabled
        </label>
        <div id="setting-payments-enabled-hint" className="field-hint">
          Customers may add USD by card on the Add Balance page
        </div>
      </div>
    </fieldset>
  );
}
