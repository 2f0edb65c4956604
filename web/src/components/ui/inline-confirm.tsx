// A change to one row of a list, confirmed in place: the row's button becomes Confirm and Keep, so
// the list around it stays in view (a device of a key, a held slot). The list says which row asks.
import { useT } from '../../lib/i18n';
type InlineConfirmProps = {
  /** This row is the one asking (a list asks about one row at a time). */
  confirming: boolean;
  /** The button that asks: its text, and its accessible name (which row it acts on). */
  label: string;
  ariaLabel: string;
  /** The accessible name of the Confirm and Keep pair ("Confirm device removal"). */
  groupLabel: string;
  confirmLabel: string;
  /** The confirm button's text while the request runs ("Removing…"). */
  busyLabel: string;
  busy: boolean;
  onAsk: () => void;
  onKeep: () => void;
  onConfirm: () => void;
};

export function InlineConfirm({
  confirming,
  label,
  ariaLabel,
  groupLabel,
  confirmLabel,
  busyLabel,
  busy,
  onAsk,
  onKeep,
  onConfirm,
}: InlineConfirmProps) {
  const t = useT();
  if (!confirming) {
    return (
      <button type="button" className="btn btn-secondary btn-sm" aria-label={ariaLabel} onClick={onAsk}>
        {label}
      </button>
    );
  }
  return (
    <div className="button-row" role="group" aria-label={groupLabel}>
      <button type="button" className="btn btn-danger btn-sm" onClick={onConfirm} disabled={busy}>
        {busy ? busyLabel : confirmLabel}
      </button>
      <button type="button" className="btn btn-secondary btn-sm" onClick={onKeep} disabled={busy}>
        {t('common.keep')}
      </button>
    </div>
  );
}
