// The audit log's vocabulary and its query, shared by the API and the Overview tab's filter.
import { z } from 'zod';
import { emptyAsUndefined, pageQuery } from '../../platform/schemas/paging';
import { isoDate, paged } from '../../platform/schemas/common';

/**
 * Every recorded admin action. Work that adds an admin action appends it here, so the log's
 * filter offers it and the API accepts it.
 */
export const AUDIT_ACTIONS = [
  'user.create',
  'user.update',
  'user.add_funds',
  'user.delete',
  'settings.update',
  'settings.reset',
  // Written by the scheduled job (modules/keys/key-lifecycle.ts), with no actor.
  'keys.auto_cleanup',
  // Key management (modules/keys/admin-keys.ts, key-generation.ts, purchase-for-user.ts).
  'keys.generate',
  'key.revoke',
  'key.delete',
  'keys.bulk_delete',
  'key.remove_activation',
  'key.release_slot',
  'key.release_seat',
  'key.purchase_for_user',
  'key.renew',
  // A key's care (modules/keys/key-care.ts): the owner's regeneration, an owner's or a reseller's transfer.
  'key.regenerate',
  'key.transfer',
  // Entitlements and metered usage (modules/keys/key-usage.ts): the owner's grant and top-up.
  'key.entitlements',
  'key.top_up',
  // Card top-ups, written by Stripe's verified webhook (modules/billing/payments.ts), with no actor.
  'payment.credited',
  'payment.refunded',
  'payment.disputed',
  'payment.dispute_won',
  'payment.dispute_lost',
  // The owner's answers to a reversal (domain/reversals-admin.ts).
  'payment.owed_written_off',
  'payment.keys_revoked',
  // Email addresses proven (modules/accounts/email-verification.ts).
  'user.email_verified',
  // Reseller tiers, a reseller's tier and a customer's reseller (modules/resellers/tiers.ts, customers.ts).
  'reseller_tier.create',
  'reseller_tier.update',
  'reseller_tier.delete',
  'reseller.tier_changed',
  'customer.reseller_changed',
  // An import of keys, accounts and ledger rows (modules/portability/import.ts): one row per chunk written.
  'keys.import',
  'user.import',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_PAGE_SIZE = 20;

export const auditLogQuery = z.object({
  ...pageQuery(AUDIT_PAGE_SIZE),
  action: z.preprocess(emptyAsUndefined, z.enum(AUDIT_ACTIONS, { error: 'Unknown audit action' }).optional()),
  /** The actor's username, exactly (case-insensitive). */
  actor: z.preprocess(emptyAsUndefined, z.string().trim().max(30, 'actor must be at most 30 characters').optional()),
});
export type AuditLogQuery = z.infer<typeof auditLogQuery>;

export const auditEntrySchema = z
  .object({
    _id: z.string(),
    action: z.string(),
    actor: z
      .object({ _id: z.string(), username: z.string().nullable() })
      .nullable()
      .meta({ description: "Null for the system; `username` null once the actor's account is deleted." }),
    targetType: z.string().nullable(),
    targetId: z.string().nullable(),
    details: z.record(z.string(), z.unknown()).nullable(),
    ipAddress: z.string().nullable(),
    createdAt: isoDate,
  })
  .meta({ id: 'AuditEntry' });

export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const auditLogResponseSchema = z.object(paged('entries', auditEntrySchema)).meta({ id: 'AuditLogResponse' });

export type AuditLogResponse = { entries: AuditEntry[]; totalPages: number; total: number };
