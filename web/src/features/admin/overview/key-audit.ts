// How the audit log reads the key management actions (revoke, delete, generate, ...).
import type { Schemas } from '../../../../../worker/platform/api-client';

type AuditEntry = Schemas['AuditEntry'];

const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

/** A short reading of a key action's details; null for the other actions. */
export function describeKeyAction(entry: AuditEntry): string | null {
  const d = entry.details ?? {};
  switch (entry.action) {
    case 'key.revoke':
      return `${text(d.key)}: ${text(d.reason)}`;
    case 'key.delete':
      return `${text(d.key)} (${text(d.product)})`;
    case 'keys.bulk_delete':
      return `${text(d.count)} keys: ${text(d.reason)}`;
    case 'keys.generate':
      return `${text(d.quantity)} × ${text(d.product)}, ${text(d.duration)} days`;
    case 'key.remove_activation':
    case 'key.release_seat':
      return `${text(d.key)}: device ${text(d.deviceFingerprint)}`;
    case 'key.entitlements':
      return `${text(d.key)}: ${Array.isArray(d.granted) && d.granted.length ? d.granted.map(text).join(', ') : 'none granted'}`;
    case 'key.top_up':
      return `${text(d.key)}: +${text(d.amount)} uses`;
    case 'key.purchase_for_user': {
      const customer = (d.customer ?? {}) as { username?: unknown };
      const paid = d.paidBy === 'nobody' ? 'free' : `${text(d.cost)} credits from the ${text(d.paidBy)}`;
      return `${text(d.product)}, ${text(d.days)} days for ${text(customer.username)} (${paid})`;
    }
    default:
      return null;
  }
}

/** What a key action was done to. */
export function keyTargetOf(entry: AuditEntry): string | null {
  if (entry.targetType === 'license_key') return entry.action.startsWith('keys.') ? 'License keys' : 'License key';
  if (entry.targetType === 'product') return 'Product';
  return null;
}
