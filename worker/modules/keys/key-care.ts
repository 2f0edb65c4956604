// A key's care by the people who hold it: giving it to another account (a transfer) and replacing a
// leaked value (a regeneration). Each is one batch: the key's change, and, only if it happened, its
// history line (key_events) and, for an owner's or a reseller's act, its audit row. A regenerated
// key's old value is kept in retired_keys, so the licensing API answers it KEY_REGENERATED at once.
import { and, desc, eq, or, sql } from 'drizzle-orm';
import { runBatch, type DB } from '../../platform/db/client';
import { activations, keyEvents, licenseKeys, retiredKeys, users } from '../../platform/db/schema';
import { AppError, forbidden, notFound } from '../../platform/errors';
import { newId } from '../../platform/ids';
import type { MailEnv } from '../../platform/mail';
import { sendMail } from '../../platform/mail';
import type { Later } from '../../platform/request';
import { isAtLeast, type Role } from '../../platform/vocabulary';
import { notPassedAt } from '../../platform/db/expiry';
import { auditStatement } from '../audit';
import type { Settings } from '../settings';
import { findKey, requireKey } from './admin-keys';
import { effectiveStatus, generateLicenseKey, licenseKeysJson, type LicenseKeyRow } from './license-keys';
import type { KeyTransfer, KeyTransfersResponse, LicenseKey } from './schemas/answers';
import type { KeyTransfersQuery } from './schemas/key-care';

/** Who acts on a key here: the account, and how it holds the key. */
export type KeyCarer = { db: DB; actor: { id: string; role: Role }; ip: string | null };

/**
 * How the actor reaches the key: `holder`, a customer's own key (My Keys); `admin`, the owner any
 * key, a reseller the keys they bought for their customers. A key out of reach is not found, so
 * nobody learns of another's key.
 */
export type Reach = 'holder' | 'admin';

export function mayReach(actor: KeyCarer['actor'], key: LicenseKeyRow, reach: Reach): boolean {
  if (reach === 'holder') return key.purchasedBy === actor.id;
  if (actor.role === 'owner') return true;
  return isAtLeast(actor.role, 'reseller') && key.createdBy === actor.id && key.paidBy === actor.id && key.purchasedBy !== null;
}

async function reachableKey(carer: KeyCarer, id: string, reach: Reach): Promise<LicenseKeyRow> {
  const key = await requireKey(carer.db, id);
  if (!mayReach(carer.actor, key, reach)) throw notFound('License key');
  return key;
}

/** The SQL that holds while the key is still as the actor saw it (its value and holder). */
const unchanged = (key: LicenseKeyRow) =>
  and(
    eq(licenseKeys.id, key.id),
    eq(licenseKeys.key, key.key),
    key.purchasedBy === null ? sql`1` : eq(licenseKeys.purchasedBy, key.purchasedBy),
  );

const changedMeanwhile = () => new AppError('CONFLICT', 'This license key changed meanwhile. Reload it and try again.');

export type RegenerateInput = { freeDevices: boolean; reason: string };

/**
 * Gives the key a new value with the same product, expiry and devices (or none, when `freeDevices`):
 * the old value stops validating at once (the licensing API answers it KEY_REGENERATED).
 */
export async function regenerateKey(
  carer: KeyCarer,
  id: string,
  input: RegenerateInput,
  reach: Reach,
  now = Date.now(),
): Promise<LicenseKey> {
  const { db, actor, ip } = carer;
  const key = await reachableKey(carer, id, reach);
  if (key.status === 'revoked') throw new AppError('CONFLICT', 'A revoked license key cannot be regenerated');
  const value = generateLicenseKey(key.productKeyTag);
  const renamed = sql`EXISTS (SELECT 1 FROM ${licenseKeys} WHERE ${licenseKeys.id} = ${key.id} AND ${licenseKeys.key} = ${value})`;
  const devices = sql`(SELECT count(*) FROM ${activations} WHERE ${activations.keyId} = ${key.id})`;
  const detail = sql`json_object('reason', ${input.reason}, 'devicesFreed', ${input.freeDevices ? devices : sql`0`})`;
  const results = await runBatch(db, [
    db
      .update(licenseKeys)
      .set({ key: value })
      .where(and(unchanged(key), sql`${licenseKeys.status} != 'revoked'`))
      .returning({ id: licenseKeys.id }),
    db.insert(retiredKeys).select(
      db
        .select({ key: sql`${key.key}`.as('key'), keyId: licenseKeys.id, retiredAt: sql`${now}`.as('retired_at') })
        .from(licenseKeys)
        .where(and(eq(licenseKeys.id, key.id), eq(licenseKeys.key, value))),
    ),
    // The history line is written before the devices go, so it can count them.
    db.insert(keyEvents).select(
      db
        .select({
          id: sql`${newId(now)}`.as('id'),
          keyId: licenseKeys.id,
          kind: sql`'regenerated'`.as('kind'),
          at: sql`${now}`.as('at'),
          actorId: sql`${actor.id}`.as('actor_id'),
          fromUserId: sql`NULL`.as('from_user_id'),
          toUserId: sql`NULL`.as('to_user_id'),
          detail: detail.as('detail'),
        })
        .from(licenseKeys)
        .where(and(eq(licenseKeys.id, key.id), eq(licenseKeys.key, value))),
    ),
    ...(input.freeDevices ? [db.delete(activations).where(and(eq(activations.keyId, key.id), renamed))] : []),
    ...(reach === 'admin'
      ? [
          auditStatement(
            db,
            actor,
            'key.regenerate',
            { type: 'license_key', id: key.id },
            { key: key.key, newKey: value, product: key.productName, reason: input.reason, freeDevices: input.freeDevices },
            ip,
            renamed,
          ),
        ]
      : []),
  ]);
  if ((results[0] as unknown[]).length === 0) throw changedMeanwhile();
  const [json] = await licenseKeysJson(db, [(await findKey(db, key.id))!], now);
  return json;
}

/** The account a transfer goes to, by email or username (either case). */
async function recipientOf(db: DB, who: string) {
  const name = who.trim().toLowerCase();
  const found = await db
    .select({ id: users.id, username: users.username, email: users.email, isActive: users.isActive })
    .from(users)
    // Emails are stored in lower case (the unique index serves it as it is); usernames by lower().
    .where(or(eq(users.email, name), sql`lower(${users.username}) = ${name}`))
    .get();
  if (!found || !found.isActive) throw new AppError('NOT_FOUND', 'No active account has that email or username');
  return found;
}

export type TransferContext = { settings: Settings; env: MailEnv; later: Later };

/**
 * Gives the key, its devices and its remaining time to another account: one conditional UPDATE (the
 * key still held as it was read, under the shop's limit), with its history line. Both accounts get
 * a mail after the answer. Refused while the owner has turned transfers off, for a revoked or
 * expired key, and past the shop's limit per key.
 */
export async function transferKey(carer: KeyCarer, id: string, to: string, reach: Reach, ctx: TransferContext, now = Date.now()) {
  const { db, actor, ip } = carer;
  const rules = ctx.settings.keyTransfers;
  if (!rules.enabled) throw forbidden('Key transfers are turned off in this shop');
  const key = await reachableKey(carer, id, reach);
  if (key.purchasedBy === null) throw new AppError('CONFLICT', 'Only a license key that belongs to an account can be transferred');
  const status = effectiveStatus(key, now);
  if (status === 'revoked') throw new AppError('CONFLICT', 'A revoked license key cannot be transferred');
  if (status === 'expired') throw new AppError('CONFLICT', 'An expired license key cannot be transferred');
  if (rules.maxPerKey > 0 && key.transferCount >= rules.maxPerKey) {
    throw new AppError(
      'CONFLICT',
      `This license key has been transferred ${rules.maxPerKey} ${rules.maxPerKey === 1 ? 'time' : 'times'}, the most this shop allows`,
    );
  }
  const recipient = await recipientOf(db, to);
  if (recipient.id === key.purchasedBy) throw new AppError('VALIDATION_ERROR', 'That account already holds this license key');
  const giver = await db
    .select({ id: users.id, username: users.username, email: users.email })
    .from(users)
    .where(eq(users.id, key.purchasedBy))
    .get();
  const moved = and(
    eq(licenseKeys.id, key.id),
    eq(licenseKeys.purchasedBy, recipient.id),
    eq(licenseKeys.transferCount, key.transferCount + 1),
  );
  const results = await runBatch(db, [
    db
      .update(licenseKeys)
      .set({ purchasedBy: recipient.id, transferCount: sql`${licenseKeys.transferCount} + 1` })
      .where(
        and(
          unchanged(key),
          eq(licenseKeys.transferCount, key.transferCount),
          sql`${licenseKeys.status} NOT IN ('revoked', 'expired')`,
          notPassedAt(licenseKeys.expiresAt, new Date(now)),
        ),
      )
      .returning({ id: licenseKeys.id }),
    db.insert(keyEvents).select(
      db
        .select({
          id: sql`${newId(now)}`.as('id'),
          keyId: licenseKeys.id,
          kind: sql`'transferred'`.as('kind'),
          at: sql`${now}`.as('at'),
          actorId: sql`${actor.id}`.as('actor_id'),
          fromUserId: sql`${key.purchasedBy}`.as('from_user_id'),
          toUserId: sql`${recipient.id}`.as('to_user_id'),
          detail: sql`json_object('key', ${key.key}, 'product', ${key.productName})`.as('detail'),
        })
        .from(licenseKeys)
        .where(moved),
    ),
    ...(reach === 'admin'
      ? [
          auditStatement(
            db,
            actor,
            'key.transfer',
            { type: 'license_key', id: key.id },
            { key: key.key, product: key.productName, from: giver?.username ?? null, to: recipient.username },
            ip,
            sql`EXISTS (SELECT 1 FROM ${licenseKeys} WHERE ${moved})`,
          ),
        ]
      : []),
  ]);
  if ((results[0] as unknown[]).length === 0) throw changedMeanwhile();
  const app = 'KeyPanel';
  const mails = [
    ...(giver
      ? [
          {
            to: giver.email,
            subject: `You gave a license key to ${recipient.username}`,
            text: `Your ${key.productName} license key ${key.key} now belongs to ${recipient.username}, with its devices and its remaining time. If you did not do this, sign in to ${app} and change your password.`,
          },
        ]
      : []),
    {
      to: recipient.email,
      subject: `${giver?.username ?? 'Someone'} gave you a license key`,
      text: `${giver?.username ?? 'Someone'} gave you their ${key.productName} license key ${key.key}. It is in My Keys in ${app}.`,
    },
  ];
  // Mail is news, not the record: a transfer stands whether or not it is delivered.
  await ctx.later(
    Promise.all(
      mails.map((mail) => sendMail(ctx.env, mail).catch((error: unknown) => console.error(`Transfer mail not sent: ${String(error)}`))),
    ),
  );
  return { key: key.key, product: key.productName, to: recipient.username };
}

/** The transfers an account gave or received, newest first: the giver's history lines. */
export async function listKeyTransfers(db: DB, userId: string, { page, limit }: KeyTransfersQuery): Promise<KeyTransfersResponse> {
  const mine = or(eq(keyEvents.fromUserId, userId), eq(keyEvents.toUserId, userId));
  const giver = sql<string | null>`(SELECT ${users.username} FROM ${users} WHERE ${users.id} = ${keyEvents.fromUserId})`;
  const taker = sql<string | null>`(SELECT ${users.username} FROM ${users} WHERE ${users.id} = ${keyEvents.toUserId})`;
  const [rows, total] = await runBatch(db, [
    db
      .select({ id: keyEvents.id, at: keyEvents.at, fromUserId: keyEvents.fromUserId, detail: keyEvents.detail, from: giver, to: taker })
      .from(keyEvents)
      .where(and(eq(keyEvents.kind, 'transferred'), mine))
      .orderBy(desc(keyEvents.at), desc(keyEvents.id))
      .limit(limit)
      .offset((page - 1) * limit),
    db
      .select({ n: sql<number>`count(*)` })
      .from(keyEvents)
      .where(and(eq(keyEvents.kind, 'transferred'), mine)),
  ]);
  const transfers: KeyTransfer[] = (
    rows as Array<{
      id: string;
      at: Date;
      fromUserId: string | null;
      detail: { key?: string; product?: string } | null;
      from: string | null;
      to: string | null;
    }>
  ).map((r) => ({
    _id: r.id,
    key: r.detail?.key ?? '',
    product: r.detail?.product ?? '',
    direction: r.fromUserId === userId ? 'given' : 'received',
    from: r.from,
    to: r.to,
    at: r.at.toISOString(),
  }));
  const count = (total as Array<{ n: number }>)[0]?.n ?? 0;
  return { transfers, total: count, totalPages: Math.max(1, Math.ceil(count / limit)) };
}
