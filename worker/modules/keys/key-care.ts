// A key's care by the people who hold it: giving it to another account (a transfer) and replacing a
// leaked value (a regeneration). Each is one batch: the key's change, and, only if it happened, its
// history line (key_events) and, for an owner's or a reseller's act, its audit row. A regenerated
// key's old value is kept in retired_keys, so the licensing API answers it KEY_REGENERATED at once.
import { and, desc, eq, or, sql, type SQL } from 'drizzle-orm';
import { runBatch, type DB } from '../../platform/db/client';
import { activations, keyEvents, licenseKeys, retiredKeys, users } from '../../platform/db/schema';
import {
  DEVICE_REMOVAL_INTERVAL_MS,
  devicesExitStatements,
  exitingDevice,
  keyDevicesStatement,
  withinSwapBudget,
  type KeyDeviceRow,
} from '../licensing';
import { dispatchCommitted } from '../webhooks';
import { AppError, forbidden, notFound } from '../../platform/errors';
import { newId } from '../../platform/ids';
import type { MailEnv } from '../../platform/mail';
import { dispatchMails, mailStatement } from '../mail';
import type { Later } from '../../platform/request';
import { isAtLeast, type Role } from '../../platform/vocabulary';
import { notPassedAt } from '../../platform/db/expiry';
import { runtimeLimit } from '../../platform/db/compiled';
import { auditStatement } from '../audit';
import type { Settings } from '../settings';
import { findKey, requireKey } from './admin-keys';
import { effectiveStatus, generateLicenseKey, licenseKeysJson, resellerReach, type LicenseKeyRow } from './license-keys';
import type { KeyTransfer, KeyTransfersResponse, LicenseKey } from './schemas/answers';
import type { KeyTransfersQuery } from './schemas/key-care';

/** Who acts on a key here: the account, and how it holds the key. */
export type KeyCarer = { db: DB; actor: { id: string; role: Role }; ip: string | null };

/**
 * How the actor reaches the key: `holder`, a customer's own key (My Keys); `admin`, the owner any
 * key, a reseller the keys they bought for their customers while they hold them (never after a
 * transfer, nor once the holder belongs to another reseller, nor a value someone else regenerated:
 * `resellerReach`). A key out of reach is not found, so nobody learns of another's key.
 */
export type Reach = 'holder' | 'admin';

/** Whether the actor reaches the key (see `Reach`); a reseller's reach is asked of D1. */
export async function mayReach(db: DB, actor: KeyCarer['actor'], key: LicenseKeyRow, reach: Reach): Promise<boolean> {
  if (reach === 'holder') return key.purchasedBy === actor.id;
  if (actor.role === 'owner') return true;
  if (!isAtLeast(actor.role, 'reseller') || key.createdBy !== actor.id || key.purchasedBy === null) return false;
  const reached = await db
    .select({ id: licenseKeys.id })
    .from(licenseKeys)
    .where(and(eq(licenseKeys.id, key.id), resellerReach(actor.id)))
    .get();
  return reached !== undefined;
}

async function reachableKey(carer: KeyCarer, id: string, reach: Reach): Promise<LicenseKeyRow> {
  const key = await requireKey(carer.db, id);
  if (!(await mayReach(carer.db, carer.actor, key, reach))) throw notFound('License key');
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
 * What a regeneration's or a transfer's new value needs in its batch: the rename's condition, the
 * old value retired (the licensing API answers it KEY_REGENERATED), and the devices that leave with
 * it, each by its one way out (licensing's device-exit.ts), which holds its slot while its offline
 * tokens may live.
 */
async function keyDevices(db: DB, keyId: string) {
  const [rows] = await runBatch(db, [keyDevicesStatement(keyId)]);
  return (rows as KeyDeviceRow[]).map(exitingDevice);
}

const retireStatement = (db: DB, key: LicenseKeyRow, value: string, now: number) =>
  db.insert(retiredKeys).select(
    db
      .select({ key: sql`${key.key}`.as('key'), keyId: licenseKeys.id, retiredAt: sql`${now}`.as('retired_at') })
      .from(licenseKeys)
      .where(and(eq(licenseKeys.id, key.id), eq(licenseKeys.key, value))),
  );

/**
 * Gives the key a new value with the same product, expiry and devices (or none, when `freeDevices`):
 * the old value stops validating at once (the licensing API answers it KEY_REGENERATED). The
 * devices freed leave as any removal does: their slots held while their offline tokens may live,
 * and, for the holder or a reseller, within the key's swap budget. The holder may regenerate a key
 * once a day, as they may remove one device a day, so regenerating is no faster way to move devices.
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
  const devices = input.freeDevices ? await keyDevices(db, key.id) : [];
  const counted = actor.role !== 'owner';
  const daily = reach === 'holder';
  const allowedFrom = now - DEVICE_REMOVAL_INTERVAL_MS;
  const value = generateLicenseKey(key.productKeyTag);
  const renamed = sql`EXISTS (SELECT 1 FROM ${licenseKeys} WHERE ${licenseKeys.id} = ${key.id} AND ${licenseKeys.key} = ${value})`;
  const liveDevices = sql`(SELECT count(*) FROM ${activations} WHERE ${activations.keyId} = ${key.id})`;
  const detail = sql`json_object('reason', ${input.reason}, 'devicesFreed', ${input.freeDevices ? liveDevices : sql`0`})`;
  const exits = devicesExitStatements(
    devices,
    key.id,
    counted ? 'counted' : 'exempt',
    now,
    (param) => `EXISTS (SELECT 1 FROM license_keys WHERE id = a.key_id AND key = ${param(value)})`,
  );
  const results = await runBatch(db, [
    db
      .update(licenseKeys)
      .set({ key: value })
      .where(
        and(
          unchanged(key),
          sql`${licenseKeys.status} != 'revoked'`,
          daily
            ? sql`NOT EXISTS (SELECT 1 FROM ${keyEvents} WHERE ${keyEvents.keyId} = ${key.id} AND ${keyEvents.kind} = 'regenerated' AND ${keyEvents.at} > ${allowedFrom})`
            : undefined,
          // Room in the swap budget for every device that leaves, or none leaves and the value stays.
          counted && devices.length ? sql.raw(withinSwapBudget('license_keys.id', String(now), String(devices.length))) : undefined,
        ),
      )
      .returning({ id: licenseKeys.id }),
    retireStatement(db, key, value, now),
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
    ...exits,
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
  if ((results[0] as unknown[]).length === 0) throw await regenerationRefused(db, key, { daily, counted, devices: devices.length }, now);
  await dispatchCommitted(results, db);
  const [json] = await licenseKeysJson(db, [(await findKey(db, key.id))!], now);
  return json;
}

/** Why a regeneration's rename did not run: the key changed, the day's allowance, or the swap budget. */
async function regenerationRefused(db: DB, key: LicenseKeyRow, rules: { daily: boolean; counted: boolean; devices: number }, now: number) {
  const latest = await findKey(db, key.id);
  if (!latest || latest.key !== key.key || latest.purchasedBy !== key.purchasedBy || latest.status === 'revoked') return changedMeanwhile();
  const regenerated = await db
    .select({ at: sql<number>`max(${keyEvents.at})` })
    .from(keyEvents)
    .where(and(eq(keyEvents.keyId, key.id), eq(keyEvents.kind, 'regenerated')))
    .get();
  const last = regenerated?.at ?? null;
  if (rules.daily && last !== null && last > now - DEVICE_REMOVAL_INTERVAL_MS) {
    const seconds = Math.max(1, Math.ceil((last + DEVICE_REMOVAL_INTERVAL_MS - now) / 1000));
    const hours = Math.ceil(seconds / 3600);
    return new AppError('RATE_LIMITED', `You can regenerate this key once a day. Try again in ${hours} hour${hours === 1 ? '' : 's'}.`, {
      headers: { 'Retry-After': String(seconds) },
      details: { nextRegenerationAt: new Date(last + DEVICE_REMOVAL_INTERVAL_MS).toISOString() },
    });
  }
  if (rules.counted && rules.devices > 0) {
    return new AppError(
      'CONFLICT',
      `This key's swap budget has no room for its ${rules.devices} device${rules.devices === 1 ? '' : 's'} to leave: regenerate it keeping its devices, or remove them one by one as swaps come free`,
    );
  }
  return changedMeanwhile();
}

/** The account a transfer goes to, by email or username (either case). */
async function recipientOf(db: DB, who: string) {
  const name = who.trim().toLowerCase();
  const found = await db
    .select({
      id: users.id,
      username: users.username,
      email: users.email,
      isActive: users.isActive,
      role: users.role,
      resellerId: users.resellerId,
    })
    .from(users)
    // Emails are stored in lower case (the unique index serves it as it is); usernames by lower().
    .where(or(eq(users.email, name), sql`lower(${users.username}) = ${name}`))
    .get();
  if (!found || !found.isActive) throw new AppError('NOT_FOUND', 'No active account has that email or username');
  return found;
}

export type TransferContext = { settings: Settings; env: MailEnv; later: Later };
export type TransferInput = { to: string; keepValue: boolean };

/**
 * Who may receive a key: a key bought at wholesale (a reseller's price) goes to customers only, and
 * a reseller gives keys as they sell them (never to themselves, to their own customers when the shop
 * says so), so a transfer is no way around the reseller price's rules.
 */
function assertMayReceive(
  actor: KeyCarer['actor'],
  key: LicenseKeyRow,
  recipient: Awaited<ReturnType<typeof recipientOf>>,
  settings: Settings,
) {
  if (recipient.id === key.purchasedBy) throw new AppError('VALIDATION_ERROR', 'That account already holds this license key');
  if (key.generationMethod === 'reseller' && recipient.role !== 'user') {
    throw forbidden(`This key was bought at a reseller's price: it can be given only to a customer (an account with the user role)`);
  }
  if (actor.role === 'reseller' && key.purchasedBy !== actor.id) {
    if (recipient.id === actor.id)
      throw forbidden("Resellers buy keys for themselves in the shop: a customer's key cannot be given to you");
    if (recipient.role !== 'user') throw forbidden('Resellers give keys to customers only: choose an account with the user role');
    if (settings.resellersSellToOwnCustomersOnly && recipient.resellerId !== actor.id) {
      throw forbidden(`${recipient.username} is not one of your customers: resellers give keys to their own customers only`);
    }
  }
}

/**
 * Gives the key and its remaining time to another account: one conditional UPDATE (the key still
 * held as it was read, under the shop's limit), with its history line. By default the key gets a
 * new value (the old one answers KEY_REGENERATED) and the giver's devices leave by their one way
 * out (held while their offline tokens may live; exempt from the swap budget), so the giver can do
 * nothing more with what they knew. `keepValue` keeps the value and the devices: the giver's
 * explicit choice (a colleague on the same machines), which the receiver is told of. Both accounts
 * get a mail after the answer. Refused while the owner has turned transfers off, for a revoked or
 * expired key, and past the shop's limit per key.
 */
export async function transferKey(carer: KeyCarer, id: string, input: TransferInput, reach: Reach, ctx: TransferContext, now = Date.now()) {
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
  const recipient = await recipientOf(db, input.to);
  assertMayReceive(actor, key, recipient, ctx.settings);
  const giver = await db
    .select({ id: users.id, username: users.username, email: users.email })
    .from(users)
    .where(eq(users.id, key.purchasedBy))
    .get();
  const value = input.keepValue ? key.key : generateLicenseKey(key.productKeyTag);
  const devices = input.keepValue ? [] : await keyDevices(db, key.id);
  const moved = and(
    eq(licenseKeys.id, key.id),
    eq(licenseKeys.key, value),
    eq(licenseKeys.purchasedBy, recipient.id),
    eq(licenseKeys.transferCount, key.transferCount + 1),
  );
  const exits = devicesExitStatements(
    devices,
    key.id,
    'exempt',
    now,
    (param) =>
      `EXISTS (SELECT 1 FROM license_keys WHERE id = a.key_id AND key = ${param(value)} AND purchased_by = ${param(recipient.id)} AND transfer_count = ${param(key.transferCount + 1)})`,
  );
  const results = await runBatch(db, [
    db
      .update(licenseKeys)
      .set({ key: value, purchasedBy: recipient.id, transferCount: sql`${licenseKeys.transferCount} + 1` })
      .where(
        and(
          unchanged(key),
          eq(licenseKeys.transferCount, key.transferCount),
          sql`${licenseKeys.status} NOT IN ('revoked', 'expired')`,
          notPassedAt(licenseKeys.expiresAt, new Date(now)),
        ),
      )
      .returning({ id: licenseKeys.id }),
    ...(input.keepValue ? [] : [retireStatement(db, key, value, now)]),
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
          // The value the giver knew, never the new one.
          detail:
            sql`json_object('key', ${key.key}, 'product', ${key.productName}, 'valueKept', json(${input.keepValue ? 'true' : 'false'}), 'devicesFreed', ${devices.length})`.as(
              'detail',
            ),
        })
        .from(licenseKeys)
        .where(moved),
    ),
    ...exits,
    ...transferMails(key, value, giver, recipient, input.keepValue, now, moved),
    ...(reach === 'admin'
      ? [
          auditStatement(
            db,
            actor,
            'key.transfer',
            { type: 'license_key', id: key.id },
            { key: key.key, product: key.productName, from: giver?.username ?? null, to: recipient.username, valueKept: input.keepValue },
            ip,
            sql`EXISTS (SELECT 1 FROM ${licenseKeys} WHERE ${moved})`,
          ),
        ]
      : []),
  ]);
  if ((results[0] as unknown[]).length === 0) throw changedMeanwhile();
  await dispatchCommitted(results, db);
  // Mail is news, not the record: it goes by the queue, after the answer.
  await dispatchMails(results, db);
  return { key: key.key, product: key.productName, to: recipient.username, valueKept: input.keepValue };
}

/** What a transfer answers its giver: whether the key went under a new value. */
export const transferredMessage = (moved: { to: string; valueKept: boolean }) =>
  moved.valueKept ? `License key given to ${moved.to}` : `License key given to ${moved.to} under a new value`;

/**
 * A transfer's mails, written only if it happened (`moved`): the receiver is told what they got (a
 * notice they may turn off), the giver that it went (a security notice, always sent).
 */
function transferMails(
  key: LicenseKeyRow,
  value: string,
  giver: { id: string; username: string } | undefined,
  recipient: { id: string; username: string },
  valueKept: boolean,
  now: number,
  moved: SQL | undefined,
) {
  const happened = {
    sql: 'EXISTS (SELECT 1 FROM license_keys WHERE id = ?7 AND key = ?8 AND purchased_by = ?9)',
    params: [key.id, value, recipient.id],
  };
  const received = mailStatement(
    {
      kind: 'key_received',
      userId: recipient.id,
      data: { key: value, product: key.productName, from: giver?.username ?? null, valueKept },
    },
    now,
    happened,
  );
  if (!giver || !moved) return [received];
  const given = mailStatement(
    {
      kind: 'security_notice',
      userId: giver.id,
      // Written in the giver's language when it is sent (mail/compose.ts), from these facts.
      data: { notice: 'key_given', product: key.productName, key: key.key, to: recipient.username, valueKept },
    },
    now,
    happened,
  );
  return [received, given];
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
      .limit(runtimeLimit(limit))
      .offset(runtimeLimit((page - 1) * limit)),
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
      detail: { key?: string; product?: string; valueKept?: boolean } | null;
      from: string | null;
      to: string | null;
    }>
  ).map((r) => ({
    _id: r.id,
    key: r.detail?.key ?? '',
    product: r.detail?.product ?? '',
    direction: r.fromUserId === userId ? 'given' : 'received',
    valueKept: r.detail?.valueKept === true,
    from: r.from,
    to: r.to,
    at: r.at.toISOString(),
  }));
  const count = (total as Array<{ n: number }>)[0]?.n ?? 0;
  return { transfers, total: count, totalPages: Math.max(1, Math.ceil(count / limit)) };
}
