// License keys: how a key string is made, what a key's status is at a given moment, and the one
// JSON shape every key list answers with (My Keys, the admin's lists, generation, the CLI).
import { and, desc, eq, inArray, or, sql, type AnyColumn, type Placeholder, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { runBatch, type DB, type Statement } from '../../platform/db/client';
import { runtimeNumber, runtimeText, slot, sqlStatement } from '../../platform/db/compiled';
import { activations, heldSlots, keyEvents, licenseKeys, users } from '../../platform/db/schema';
import { hasPassed, type KeyStatus } from '../../platform/vocabulary';
import { hasPassedExpr, notPassedAt, passedAt } from '../../platform/db/expiry';
import { type KeyUserRef } from '../../platform/schemas/common';
import { type LicenseKey } from './schemas/answers';
import { entitlementsSql, keyEntitlements, usageJson, usageJsonSql, usageNow } from '../catalog';
import { products } from '../../platform/db/schema';

export type LicenseKeyRow = typeof licenseKeys.$inferSelect;

/**
 * SQL that holds while reseller `viewer` (an id, or a statement's slot) may still reach a key in the
 * panel: their own purchase, or one they sold that was never given away since, whose holder has no
 * other reseller, and whose value nobody but them has regenerated (a value they did not sell).
 */
export const resellerReach = (viewer: SQL | Placeholder | string) => sql`(${licenseKeys.purchasedBy} = ${viewer} OR (
    ${licenseKeys.paidBy} = ${viewer} AND ${licenseKeys.transferCount} = 0
    AND EXISTS (SELECT 1 FROM ${users} rh WHERE rh.id = ${licenseKeys.purchasedBy} AND coalesce(rh.reseller_id, ${viewer}) = ${viewer})
    AND NOT EXISTS (SELECT 1 FROM ${keyEvents} re WHERE re.key_id = ${licenseKeys.id} AND re.kind = 'regenerated' AND re.actor_id != ${viewer})))`;
export type ActivationRow = typeof activations.$inferSelect;
export type HeldSlotRow = typeof heldSlots.$inferSelect;

/** Digits and capitals without 0/O, 1/I/L and U/V look-alikes: a key read aloud or retyped survives. */
export const KEY_ALPHABET = '23456789ABCDEFGHJKMNPQRSTWXYZ';
export const KEY_GROUPS = 4;
export const KEY_GROUP_LENGTH = 5;
/** log2(29) x 20 characters = 97 bits of randomness, above the 80 the design asks for. */
export const KEY_RANDOM_BITS = Math.log2(KEY_ALPHABET.length) * KEY_GROUPS * KEY_GROUP_LENGTH;

/** Uniform characters from crypto.getRandomValues: bytes past the last whole multiple are redrawn. */
function randomCharacters(count: number): string {
  const n = KEY_ALPHABET.length;
  const limit = 256 - (256 % n);
  let out = '';
  while (out.length < count) {
    for (const byte of crypto.getRandomValues(new Uint8Array(count * 2))) {
      if (byte < limit && out.length < count) out += KEY_ALPHABET[byte % n];
    }
  }
  return out;
}

/** `TAG-XXXXX-XXXXX-XXXXX-XXXXX`, prefixed with the product's keyTag. */
export function generateLicenseKey(keyTag: string): string {
  const chars = randomCharacters(KEY_GROUPS * KEY_GROUP_LENGTH);
  const groups = Array.from({ length: KEY_GROUPS }, (_, i) => chars.slice(i * KEY_GROUP_LENGTH, (i + 1) * KEY_GROUP_LENGTH));
  return [keyTag, ...groups].join('-');
}

/** A moment in milliseconds, or a compiled statement's slot for it (platform/db/compiled.ts). */
export type At = number | Placeholder;

/**
 * The status a key has now. The cron job marks keys expired every few minutes; until it has,
 * a key whose expiry has passed is already expired for every screen and every check.
 */
export function effectiveStatus(row: Pick<LicenseKeyRow, 'status' | 'expiresAt'>, now = Date.now()): KeyStatus {
  if ((row.status === 'used' || row.status === 'available') && hasPassed(row.expiresAt?.getTime(), now)) return 'expired';
  return row.status;
}

/**
 * The SQL filter for keys whose effective status is `status`, matching `effectiveStatus`.
 * `narrowed`: the query already picks few keys through a sharper index (one customer's or one
 * reseller's keys, a search), so the status must only filter those. Without statistics SQLite takes
 * `status = ?` for a selective term and would walk every key of that status instead; the unary +
 * keeps it off the status indexes.
 */
export function effectiveStatusIs(status: KeyStatus, now: At = Date.now(), { narrowed = false } = {}): SQL {
  const at = typeof now === 'number' ? new Date(now) : now;
  const column = narrowed ? sql`+${licenseKeys.status}` : sql`${licenseKeys.status}`;
  const live = notPassedAt(licenseKeys.expiresAt, at);
  switch (status) {
    case 'used':
    case 'available':
      return and(eq(column, status), live)!;
    case 'revoked':
      return eq(column, 'revoked');
    case 'expired':
      return or(eq(column, 'expired'), and(inArray(column, ['used', 'available']), passedAt(licenseKeys.expiresAt, at)))!;
  }
}

/** `%` and `_` typed by a person are letters, not wildcards. */
const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
export const likeContains = (text: string) => `%${likeEscaped(text)}%`;
/** A likeSql pattern that matches the whole text alone (in any ASCII case, as LIKE does). */
export const likeExactly = likeEscaped;
/** `column` LIKE a likeContains pattern, the pattern read as the statement runs (runtimeText). */
export const likeSql = (column: SQLWrapper, pattern: Placeholder) => sql`${column} LIKE ${runtimeText(pattern)} ESCAPE '\\'`;

export const DELETED_USER = 'Deleted user';

export type KeyRelations = {
  usernames: Map<string, string>;
  activationsByKey: Map<string, ActivationRow[]>;
  /** Slots released devices still hold (only those not yet freed are listed). */
  heldSlotsByKey?: Map<string, HeldSlotRow[]>;
  /** The keys' products' entitlements and usage rules (a key of a product not listed has neither). */
  productsById?: Map<string, KeyProductRules>;
};

/** What a key's JSON reads of its product beyond its snapshot: entitlements and usage rules. */
export type KeyProductRules = Pick<
  typeof products.$inferSelect,
  'id' | 'entitlements' | 'usageAllowance' | 'usageRefillAmount' | 'usageRefillDays'
>;

/** A key's entitlements and uses, as its JSON says them. */
function keyUsageJson(row: LicenseKeyRow, product: KeyProductRules | undefined, now: number) {
  return {
    entitlements: keyEntitlements(product?.entitlements ?? [], row.entitlements),
    usage: product
      ? usageJson(usageNow({ ...product, usageRemaining: row.usageRemaining, usagePeriodStart: row.usagePeriodStart }, now))
      : null,
  };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function userRef(id: string | null, usernames: Map<string, string>): KeyUserRef | null {
  if (!id) return null;
  return { _id: id, username: usernames.get(id) ?? DELETED_USER };
}

/** The one JSON shape of a license key (`LicenseKey` in keys/schemas/answers.ts). */
export function toLicenseKeyJson(row: LicenseKeyRow, relations: KeyRelations, now = Date.now()): LicenseKey {
  return {
    _id: row.id,
    key: row.key,
    status: effectiveStatus(row, now),
    product: {
      _id: row.productId,
      name: row.productName,
      keyTag: row.productKeyTag,
      productType: row.productType,
      duration: row.duration,
      maxActivations: row.maxActivations,
    },
    purchasedAt: iso(row.purchasedAt),
    purchasedBy: userRef(row.purchasedBy, relations.usernames),
    createdBy: userRef(row.createdBy, relations.usernames),
    duration: row.duration,
    purchasePrice: row.purchasePrice,
    revokeReason: row.revokeReason,
    firstUsedAt: iso(row.firstUsedAt),
    createdAt: row.createdAt.toISOString(),
    expiresAt: iso(row.expiresAt),
    metadata: { generationMethod: row.generationMethod },
    maxActivations: row.maxActivations,
    trial: row.isTrial,
    ...keyUsageJson(row, relations.productsById?.get(row.productId), now),
    expiryModel: row.expiryModel,
    autoRenewDays: row.autoRenewDays,
    autoRenewFailedAt: iso(row.autoRenewFailedAt),
    activations: (relations.activationsByKey.get(row.id) ?? []).map((a) => ({
      _id: a.id,
      activatedAt: a.activatedAt.toISOString(),
      lastUsed: iso(a.lastUsed),
      deviceFingerprint: a.deviceFingerprint,
      deviceInfo: a.deviceInfo ?? null,
      leaseExpiresAt: iso(a.leaseExpiresAt),
      borrowedUntil: iso(a.borrowedUntil),
      replacePendingAt: iso(a.replacePendingAt),
    })),
    heldSlots: (relations.heldSlotsByKey?.get(row.id) ?? [])
      .filter((h) => h.freesAt.getTime() > now)
      .map((h) => ({
        _id: h.id,
        deviceFingerprint: h.deviceFingerprint,
        releasedAt: h.releasedAt.toISOString(),
        freesAt: h.freesAt.toISOString(),
      })),
  };
}

// D1 binds at most 100 parameters per statement.
export const CHUNK = 90;
/** A list in pieces of CHUNK, one statement's worth of bound ids each. */
export function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/** Usernames and activations for a page of keys: a few queries whatever the page size, in one D1 round trip. */
export async function loadKeyRelations(db: DB, rows: LicenseKeyRow[]): Promise<KeyRelations> {
  const userIds = [...new Set(rows.flatMap((r) => [r.purchasedBy, r.createdBy]).filter((id): id is string => !!id))];
  const keyIds = rows.map((r) => r.id);
  const userQueries = chunks(userIds).map((ids) =>
    db.select({ id: users.id, username: users.username }).from(users).where(inArray(users.id, ids)),
  );
  const activationQueries = chunks(keyIds).map((ids) =>
    db.select().from(activations).where(inArray(activations.keyId, ids)).orderBy(activations.activatedAt, activations.id),
  );
  const heldQueries = chunks(keyIds).map((ids) =>
    db.select().from(heldSlots).where(inArray(heldSlots.keyId, ids)).orderBy(heldSlots.freesAt, heldSlots.id),
  );
  const productQueries = chunks([...new Set(rows.map((r) => r.productId))]).map((ids) =>
    db.select(productRulesColumns).from(products).where(inArray(products.id, ids)),
  );
  const queries: BatchItem<'sqlite'>[] = [...userQueries, ...activationQueries, ...heldQueries, ...productQueries];
  const results = (queries.length ? await runBatch(db, queries) : []) as unknown[][];
  const heldFrom = userQueries.length + activationQueries.length;
  const productsFrom = heldFrom + heldQueries.length;
  return {
    ...relationsFrom(
      results.slice(0, userQueries.length).flat() as { id: string; username: string }[],
      results.slice(userQueries.length, heldFrom).flat() as ActivationRow[],
      results.slice(heldFrom, productsFrom).flat() as HeldSlotRow[],
    ),
    productsById: new Map((results.slice(productsFrom).flat() as KeyProductRules[]).map((p) => [p.id, p])),
  };
}

/** The product columns a key's JSON reads (KeyProductRules). */
export const productRulesColumns = {
  id: products.id,
  entitlements: products.entitlements,
  usageAllowance: products.usageAllowance,
  usageRefillAmount: products.usageRefillAmount,
  usageRefillDays: products.usageRefillDays,
};

function byKey<T extends { keyId: string }>(rows: T[]): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const row of rows) {
    const list = map.get(row.keyId) ?? [];
    list.push(row);
    map.set(row.keyId, list);
  }
  return map;
}

function relationsFrom(
  userRows: { id: string; username: string }[],
  activationRows: ActivationRow[],
  heldRows: HeldSlotRow[],
): KeyRelations {
  return {
    usernames: new Map(userRows.map((u) => [u.id, u.username])),
    activationsByKey: byKey(activationRows),
    heldSlotsByKey: byKey(heldRows),
  };
}

/** A timestamp column (milliseconds) written as `Date.prototype.toISOString` writes it; NULL stays NULL. */
const isoSql = (column: AnyColumn) => sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${column} / 1000.0, 'unixepoch')`;

/** A buyer or creator as `userRef` makes it: null, or the id with the current username. */
const userRefSql = (column: AnyColumn) =>
  sql`json(CASE WHEN ${column} IS NULL THEN NULL ELSE json_object('_id', ${column}, 'username', coalesce((SELECT ${users.username} FROM ${users} WHERE ${users.id} = ${column}), ${DELETED_USER})) END)`;

/** `effectiveStatus` in SQL. */
const effectiveStatusSql = (now: At) =>
  sql`CASE WHEN ${licenseKeys.status} IN ('used', 'available') AND ${hasPassedExpr(licenseKeys.expiresAt, now)} THEN 'expired' ELSE ${licenseKeys.status} END`;

/**
 * `toLicenseKeyJson` written in SQL, for the row of license_keys in scope: SQLite builds a page's
 * JSON where the rows are, so a list answers with one text value instead of every column of every
 * key, device and user crossing to the Worker to be mapped there (most of a list's CPU). A test
 * holds both to the same result for keys of every kind.
 */
export const licenseKeyJsonSql = (now: At) => sql`json_object(
  '_id', ${licenseKeys.id},
  'key', ${licenseKeys.key},
  'status', ${effectiveStatusSql(now)},
  'product', json_object('_id', ${licenseKeys.productId}, 'name', ${licenseKeys.productName}, 'keyTag', ${licenseKeys.productKeyTag}, 'productType', ${licenseKeys.productType}, 'duration', ${licenseKeys.duration}, 'maxActivations', ${licenseKeys.maxActivations}),
  'purchasedAt', ${isoSql(licenseKeys.purchasedAt)},
  'purchasedBy', ${userRefSql(licenseKeys.purchasedBy)},
  'createdBy', ${userRefSql(licenseKeys.createdBy)},
  'duration', ${licenseKeys.duration},
  'purchasePrice', ${licenseKeys.purchasePrice},
  'revokeReason', ${licenseKeys.revokeReason},
  'firstUsedAt', ${isoSql(licenseKeys.firstUsedAt)},
  'createdAt', ${isoSql(licenseKeys.createdAt)},
  'expiresAt', ${isoSql(licenseKeys.expiresAt)},
  'metadata', json_object('generationMethod', ${licenseKeys.generationMethod}),
  'maxActivations', ${licenseKeys.maxActivations},
  'trial', json(CASE WHEN ${licenseKeys.isTrial} THEN 'true' ELSE 'false' END),
  'entitlements', json(${sql.raw(entitlementsSql(`(SELECT kp.entitlements FROM products kp WHERE kp.id = "license_keys"."product_id")`, '"license_keys"."entitlements"'))}),
  'usage', json((SELECT ${sql.raw(usageJsonSql('"license_keys"', 'kp', 'kn.t'))} FROM products kp, (SELECT ${now} AS t) kn WHERE kp.id = ${licenseKeys.productId})),
  'expiryModel', ${licenseKeys.expiryModel},
  'autoRenewDays', ${licenseKeys.autoRenewDays},
  'autoRenewFailedAt', ${isoSql(licenseKeys.autoRenewFailedAt)},
  'activations', json((SELECT json_group_array(json_object(
    '_id', ${activations.id},
    'activatedAt', ${isoSql(activations.activatedAt)},
    'lastUsed', ${isoSql(activations.lastUsed)},
    'deviceFingerprint', ${activations.deviceFingerprint},
    'deviceInfo', json(${activations.deviceInfo}),
    'leaseExpiresAt', ${isoSql(activations.leaseExpiresAt)},
    'borrowedUntil', ${isoSql(activations.borrowedUntil)},
    'replacePendingAt', ${isoSql(activations.replacePendingAt)}
  ) ORDER BY ${activations.activatedAt}, ${activations.id}) FROM ${activations} WHERE ${activations.keyId} = ${licenseKeys.id})),
  'heldSlots', json((SELECT json_group_array(json_object(
    '_id', ${heldSlots.id},
    'deviceFingerprint', ${heldSlots.deviceFingerprint},
    'releasedAt', ${isoSql(heldSlots.releasedAt)},
    'freesAt', ${isoSql(heldSlots.freesAt)}
  ) ORDER BY ${heldSlots.freesAt}, ${heldSlots.id}) FROM ${heldSlots} WHERE ${heldSlots.keyId} = ${licenseKeys.id} AND ${heldSlots.freesAt} > ${now}))
)`;

/** The newest-first order of every key list: by creation, then by id so that the order is total. */
export const NEWEST_FIRST = [desc(licenseKeys.createdAt), desc(licenseKeys.id)];

/** The keys in scope as one JSON array, newest first. */
const keysArraySql = (now: At) =>
  sql<string>`json_group_array(${licenseKeyJsonSql(now)} ORDER BY ${licenseKeys.createdAt} DESC, ${licenseKeys.id} DESC)`;

/**
 * The statement that answers a page of keys as one JSON array (text), newest first. `pageIds`
 * picks the page: a query of license_keys ids with its own order, limit and offset, best served
 * from an index that holds (…, created_at, id), so that only the page's rows are read.
 */
export function keysJsonStatement(db: DB, pageIds: SQLWrapper, now: At) {
  return db
    .select({ json: keysArraySql(now).as('json') })
    .from(licenseKeys)
    .where(inArray(licenseKeys.id, pageIds));
}

/** A list's answer, written around the page's JSON array as SQLite made it. */
export const keyListJson = (keysJson: string, total: number, limit: number) =>
  `{"keys":${keysJson},"totalPages":${Math.ceil(total / limit)},"total":${total}}`;

/** The keys `where` picks, as the rows (r: rowid, c: creation, i: id) keysPageAndTotalQuery pages and counts. */
export const keyMatches = (db: DB, where: SQL | undefined) =>
  db
    .select({
      r: sql<number>`${licenseKeys}.rowid`.as('r'),
      c: sql<number>`${licenseKeys.createdAt}`.as('c'),
      i: sql<string>`${licenseKeys.id}`.as('i'),
    })
    .from(licenseKeys)
    .where(where);

/**
 * A page of the `matches` (keyMatches, or a union of them) as JSON, and their total, in one
 * statement: the page is taken from them (slots `limit` and `offset`) and they are counted. Found
 * from one index in its own order (a customer's keys), the matches are best walked twice: the page
 * stops after its rows and the count reads the index alone. A search's matches come from several
 * lookups, or from a pattern tested on each key (`materialize`): SQLite then finds them once into a
 * table of their own, instead of once for the page and again for the count. (A search that matches
 * nearly everything pays for that: sorting its matches costs more than the page's short walk.)
 */
export function keysPageAndTotalQuery(matches: SQLWrapper, now: At, { materialize = false } = {}) {
  const query = sql`WITH "matches" AS ${sql.raw(materialize ? 'MATERIALIZED ' : '')}${matches}
    SELECT (SELECT ${keysArraySql(now)} FROM ${licenseKeys} WHERE ${licenseKeys}.rowid IN (SELECT "r" FROM "matches" ORDER BY "c" DESC, "i" DESC LIMIT ${runtimeNumber(slot('limit'))} OFFSET ${runtimeNumber(slot('offset'))})) AS "json",
      (SELECT count(*) FROM "matches") AS "total"`;
  return sqlStatement(query);
}

/**
 * A page of keys as one JSON array, newest first, taken from `candidates` (a query of license_keys
 * rowids that holds at least the page's keys and every newer one: slots `limit` and `offset`).
 */
export const candidatesPageJsonSql = (candidates: SQLWrapper, now: At) =>
  sql<string>`(SELECT ${keysArraySql(now)} FROM ${licenseKeys} WHERE ${licenseKeys}.rowid IN (SELECT pk.rowid FROM ${licenseKeys} pk WHERE pk.rowid IN ${candidates} ORDER BY pk.created_at DESC, pk.id DESC LIMIT ${runtimeNumber(slot('limit'))} OFFSET ${runtimeNumber(slot('offset'))}))`;

/** Runs a keysPageAndTotalQuery (compiled: platform/db/compiled.ts) in the request's batch. */
export async function keysPageJson(db: DB, statement: Statement): Promise<{ keysJson: string; total: number }> {
  const [[row]] = (await runBatch(db, [statement])) as [[{ json: string; total: number }]];
  return { keysJson: row.json, total: row.total };
}

/** A page of key rows as JSON, with their users and activations. */
export async function licenseKeysJson(db: DB, rows: LicenseKeyRow[], now = Date.now()): Promise<LicenseKey[]> {
  const relations = await loadKeyRelations(db, rows);
  return rows.map((row) => toLicenseKeyJson(row, relations, now));
}
