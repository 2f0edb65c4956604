// How the audit log reads the key management actions (revoke, delete, generate, ...).
import type { Schemas } from '../../../../../worker/platform/api-client';
import { translate } from '../../../lib/i18n';

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
      return translate('admin.audit.keysDeleted', { count: Number(d.count ?? 0), reason: text(d.reason) });
    case 'keys.generate':
      return translate('admin.audit.keysGenerated', {
        quantity: text(d.quantity),
        product: text(d.product),
        count: Number(d.duration ?? 0),
      });
    case 'key.remove_activation':
    case 'key.release_seat':
      return translate('admin.audit.keyDevice', { key: text(d.key), device: text(d.deviceFingerprint) });
    case 'key.entitlements':
      return `${text(d.key)}: ${Array.isArray(d.granted) && d.granted.length ? d.granted.map(text).join(', ') : translate('admin.audit.noneGranted')}`;
    case 'key.top_up':
      return translate('admin.audit.usesAdded', { key: text(d.key), count: Number(d.amount ?? 0) });
    case 'key.purchase_for_user': {
      const customer = (d.customer ?? {}) as { username?: unknown };
      const paid =
        d.paidBy === 'nobody'
          ? translate('admin.audit.free')
          : translate('admin.audit.paidBy', { count: Number(d.cost ?? 0), payer: text(d.paidBy) });
      return translate('admin.audit.boughtFor', {
        product: text(d.product),
        count: Number(d.days ?? 0),
        customer: text(customer.username),
        paid,
      });
    }
    default:
      return null;
  }
}

/** What a key action was done to. */
export function keyTargetOf(entry: AuditEntry): string | null {
  if (entry.targetType === 'license_key')
    return entry.action.startsWith('keys.') ? translate('admin.audit.targetKeys') : translate('admin.audit.targetKey');
  if (entry.targetType === 'product') return translate('admin.audit.targetProduct');
  return null;
}
