// Gumroad: a sale's licence, from its API (a sale or the license verify answer's `purchase`:
// license_key, email, refunded, chargebacked, disputed, subscription dates) or from its dashboard's
// sales CSV ("License Key", "Purchase Email", "Refunded?", "Disputed?"...). Gumroad keys have no
// expiry and no device limit: they are perpetual here (a sale never expires there), with the
// request's (or the product's) device limit; an ended subscription's key is expired.
import { z } from 'zod';
import { email, failed, keyValue, when, type KeyRow, type Mapped } from '../import';
import { neverExpires, renameFields, yesNo, type VendorFormat } from './fields';

const names = {
  license_key: ['License Key'],
  email: ['Purchase Email', 'Buyer Email', 'purchase_email'],
  refunded: ['Fully Refunded?', 'Refunded?'],
  chargebacked: ['Chargebacked?', 'chargedback'],
  disputed: ['Disputed?'],
  dispute_won: ['Dispute Won?'],
  disabled: ['License Disabled?', 'license_disabled'],
  subscription_ended_at: ['Subscription Ended At', 'Subscription End Date'],
  subscription_failed_at: ['Subscription Failed At'],
};

const licence = z
  .object({
    license_key: keyValue,
    email,
    refunded: yesNo('refunded'),
    chargebacked: yesNo('chargebacked'),
    disputed: yesNo('disputed'),
    dispute_won: yesNo('dispute_won'),
    disabled: yesNo('disabled'),
    subscription_ended_at: when('subscription_ended_at'),
    subscription_failed_at: when('subscription_failed_at'),
  })
  .transform((r): KeyRow => {
    const ended = r.subscription_ended_at ?? r.subscription_failed_at;
    const chargedBack = r.chargebacked || (r.disputed && !r.dispute_won);
    return {
      type: 'key',
      key: r.license_key,
      email: r.email ?? null,
      status: r.disabled ? 'revoked' : ended !== undefined ? 'expired' : 'available',
      expiresAt: ended ?? null,
      ...neverExpires(ended, r.disabled),
      fingerprints: [],
      skip: r.refunded ? 'refunded in Gumroad' : chargedBack ? 'charged back in Gumroad' : undefined,
    };
  });

/** The verify answer ({success, uses, purchase: {...}}) gives its purchase. */
const purchaseOf = (record: Record<string, unknown>) =>
  typeof record.purchase === 'object' && record.purchase !== null && !Array.isArray(record.purchase)
    ? (record.purchase as Record<string, unknown>)
    : record;

export const gumroad: VendorFormat = {
  deviceTypes: [],
  names: () => names,
  view: purchaseOf,
  map(record): Mapped {
    const parsed = licence.safeParse(renameFields(purchaseOf(record), names));
    return parsed.success ? { ok: true, row: parsed.data } : failed(parsed.error);
  },
};
