// A reseller's customers: who belongs to whom (by the referral link at registration, or the owner's
// choice, which only the owner may change, audited), and the list of a reseller's customers with
// what each bought and earned them. Every query is scoped by the reseller's id, which the route takes
// from the caller (a reseller) or from the path (the owner): nobody else's customers are reachable.
import { and, eq, sql } from 'drizzle-orm';
import { rawSql, runBatch, type DB } from '../../platform/db/client';
import { users } from '../../platform/db/schema';
import { prefixEnd } from '../../platform/sql-prefix';
import { AppError, notFound } from '../../platform/errors';
import { auditStatement } from '../audit';
import type { OwnerContext } from './tiers';
import type { ResellerCustomer, ResellerCustomersQuery, ResellerCustomersResponse } from './schemas';

/** Gives a customer (an account with the user role) to a reseller, or to none. Audited. */
export async function setCustomerReseller(owner: OwnerContext, customerId: string, resellerId: string | null): Promise<void> {
  const { db, actor, ip } = owner;
  const [[customer], [reseller]] = await db.batch([
    db.select({ username: users.username, role: users.role, resellerId: users.resellerId }).from(users).where(eq(users.id, customerId)),
    db
      .select({ username: users.username, role: users.role })
      .from(users)
      .where(eq(users.id, resellerId ?? '')),
  ]);
  if (!customer) throw notFound('User');
  if (customer.role !== 'user')
    throw new AppError('CONFLICT', `${customer.username} is a ${customer.role}: only customers (role user) belong to a reseller`, {
      details: { field: 'id' },
    });
  if (resellerId !== null && (!reseller || reseller.role !== 'reseller'))
    throw new AppError('VALIDATION_ERROR', 'resellerId must name an account with the reseller role', { details: { field: 'resellerId' } });
  // Both accounts as checked above, when the write lands.
  const guard = and(
    eq(users.id, customerId),
    eq(users.role, 'user'),
    resellerId === null ? undefined : sql`EXISTS (SELECT 1 FROM users r WHERE r.id = ${resellerId} AND r.role = 'reseller')`,
  )!;
  const [, updated] = await db.batch([
    auditStatement(
      db,
      actor,
      'customer.reseller_changed',
      { type: 'user', id: customerId },
      {
        username: customer.username,
        from: customer.resellerId,
        to: resellerId,
        reseller: reseller && resellerId !== null ? reseller.username : null,
      },
      ip,
      sql`EXISTS (SELECT 1 FROM ${users} WHERE ${guard})`,
    ),
    db.update(users).set({ resellerId }).where(guard),
  ]);
  if (updated.meta.changes === 0) throw new AppError('CONFLICT', 'The customer or the reseller changed meanwhile; reload and try again');
}

type CustomerRow = {
  id: string;
  username: string;
  email: string;
  created_at: number;
  purchases: number;
  credits_spent: number;
  last_purchase_at: number | null;
  keys_from_reseller: number;
  commission_earned: number;
  current: number;
  until: number | null;
};

/**
 * A key the customer bought while ?1 was their reseller: its purchase falls in one of their
 * stretches with ?1 (customer_resellers, kept by triggers, migration 0027).
 */
const WHILE_THEIRS = `EXISTS (SELECT 1 FROM customer_resellers s WHERE s.customer_id = u.id AND s.reseller_id = ?1
                          AND s.since <= k.created_at AND (s.until IS NULL OR k.created_at < s.until))`;
const OWN_PURCHASE = `k.purchased_by = u.id AND k.paid_by = u.id AND ${WHILE_THEIRS}`;

/**
 * One page of a reseller's customers, newest first: those who are theirs now and those who were
 * (moved to another reseller or to none since; `customerUntil` says when), each with the purchases
 * they made while the customer was this reseller's (issue 42: a customer moved between resellers
 * shows each reseller its own stretch, never the other's), the keys the reseller bought them, and the
 * commission they earned the reseller. `search`: a username or email prefix.
 */
export async function listResellerCustomers(db: DB, resellerId: string, query: ResellerCustomersQuery): Promise<ResellerCustomersResponse> {
  // A prefix as a range (platform/sql-prefix.ts), bound as a value read at run time: no LIKE to replan.
  const prefix = query.search ? query.search.toLowerCase() : null;
  const end = prefix === null ? null : prefixEnd(prefix);
  const where = `u.id IN (SELECT customer_id FROM customer_resellers WHERE reseller_id = ?1)
    AND (?2 IS NULL OR (lower(u.username) >= ?2 AND lower(u.username) < ?3) OR (u.email >= ?2 AND u.email < ?3))`;
  const [rows, [total]] = (await runBatch(db, [
    rawSql(
      `SELECT u.id, u.username, u.email, u.created_at,
              (SELECT count(*) FROM license_keys k WHERE ${OWN_PURCHASE}) AS purchases,
              (SELECT coalesce(sum(k.purchase_price), 0) FROM license_keys k WHERE ${OWN_PURCHASE}) AS credits_spent,
              (SELECT max(k.created_at) FROM license_keys k WHERE ${OWN_PURCHASE}) AS last_purchase_at,
              (SELECT count(*) FROM license_keys k WHERE k.purchased_by = u.id AND k.created_by = ?1 AND k.generation_method = 'reseller') AS keys_from_reseller,
              (SELECT coalesce(sum(l.credits_delta), 0) FROM ledger l WHERE l.user_id = ?1 AND +l.kind = 'commission' AND l.actor_id = u.id) AS commission_earned,
              coalesce(u.reseller_id = ?1, 0) AS current,
              (SELECT max(s.until) FROM customer_resellers s WHERE s.customer_id = u.id AND s.reseller_id = ?1) AS until
         FROM users u WHERE ${where}
        ORDER BY u.created_at DESC, u.id DESC LIMIT (?4 + 0) OFFSET (?5 + 0)`,
      resellerId,
      prefix,
      end,
      query.limit,
      (query.page - 1) * query.limit,
    ),
    rawSql(`SELECT count(*) AS n FROM users u WHERE ${where}`, resellerId, prefix, end),
  ])) as [CustomerRow[], Array<{ n: number }>];
  const customers: ResellerCustomer[] = rows.map((r) => ({
    _id: r.id,
    username: r.username,
    email: r.email,
    createdAt: new Date(r.created_at).toISOString(),
    purchases: r.purchases,
    creditsSpent: r.credits_spent,
    commissionEarned: r.commission_earned,
    keysFromReseller: r.keys_from_reseller,
    lastPurchaseAt: r.last_purchase_at === null ? null : new Date(r.last_purchase_at).toISOString(),
    customerUntil: r.current === 1 || r.until === null ? null : new Date(r.until).toISOString(),
  }));
  return { customers, total: total.n, totalPages: Math.ceil(total.n / query.limit) };
}
