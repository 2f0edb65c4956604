// The admin's key management: the key list an owner or a reseller sees,
// and the owner's revocation, deletion and device removal. Every change is audited in the same
// batch as the write it records (device removal right after it: licensing.ts owns that batch).
import type { Context } from 'hono';
import { clientIp } from '../../platform/request';
import type { SignedInEnv } from '../../platform/context';
import { and, eq, gt, inArray, ne, or, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { union } from 'drizzle-orm/sqlite-core';
import { runBatch, type DB } from '../../platform/db/client';
import { compiledStatement, rowsAsJson, runtimeLimit, runtimeNumber, slot, sqlStatement } from '../../platform/db/compiled';
import { activations, heldSlots, keyTagCounts, licenseKeys, productKeyCounts, products, users } from '../../platform/db/schema';
import { AppError, notFound } from '../../platform/errors';
import { exactEnd, inPrefixRange, prefixEnd } from '../../platform/sql-prefix';
import type { Actor } from '../../platform/db/schema';
import type { AdminKeysQuery } from './schemas/admin-keys';
import type { JsonText } from '../../platform/request';
import { countsOf, keyCountsTotal, lapsedKeys, readCountedJson, shopKeyCountsJson, type StatusCount } from './key-counts';
import {
  candidatesPageJsonSql,
  chunks,
  effectiveStatus,
  effectiveStatusIs,
  keyListJson,
  keyMatches,
  keysJsonStatement,
  keysPageAndTotalQuery,
  keysPageJson,
  licenseKeysJson,
  likeContains,
  likeExactly,
  likeSql,
  NEWEST_FIRST,
  resellerReach,
} from './license-keys';
import { KEY_STATUSES, type KeyStatus } from '../../platform/vocabulary';
import { auditStatement, recordAudit } from '../audit';
import { removeActivation } from '../licensing';
import { activationEvent, dispatchCommitted, keyEvents } from '../webhooks';
import { passedAt } from '../../platform/db/expiry';
import { type AdminKeysResponse, type LicenseKey } from './schemas/answers';

/** Who is acting, and from where: every admin write is recorded with both. */
export type KeyAdmin = { db: DB; actor: Actor; ip: string | null };

/** Who acts on license keys in this request (admin-keys.ts, key-generation.ts). */
export const keyAdmin = (c: Context<SignedInEnv>): KeyAdmin => ({ db: c.var.db, actor: c.var.caller, ip: clientIp(c) });

/**
 * The keys a search names within a reseller's keys or one product (the owner's search across the shop
 * is ownerByProducts), with the list's other filters (`filters`), each form served by an index
 * (docs/api.md, "Key management"): a key by prefix (keys are uppercase; a range on the unique index), a product
 * by name or keyTag (the few products are matched first, then license_keys_product_idx), a buyer or
 * creator by username prefix (the lower(username) index, then the buyer and creator indexes). One
 * lookup per form, united: the product, buyer and creator indexes hold what the filters and the page
 * need (status, expiry, creation, id), so a search that names a product's thousand keys finds them
 * without reading one key's row. Slots: see searchSlots.
 */
function searchMatches(db: DB, filters: SQL | undefined) {
  const namedUsers = db
    .select({ id: users.id })
    .from(users)
    .where(inPrefixRange(sql`lower(${users.username})`, slot('nameFrom'), slot('nameTo')));
  const namedProducts = db
    .select({ id: products.id })
    .from(products)
    .where(or(likeSql(products.name, slot('pattern')), eq(products.keyTag, slot('keyFrom'))));
  const named = (match: SQL) => keyMatches(db, and(match, filters));
  return union(
    named(inPrefixRange(licenseKeys.key, slot('keyFrom'), slot('keyTo'))),
    named(inArray(licenseKeys.productId, namedProducts)),
    named(inArray(licenseKeys.purchasedBy, namedUsers)),
    named(inArray(licenseKeys.createdBy, namedUsers)),
  );
}

/** Shorter searches match whole values only (see searchSlots). */
export const SHORT_SEARCH = 3;

/**
 * A search's values for searchMatches. From SHORT_SEARCH characters on: a key by prefix, a product
 * by any part of its name or by its keyTag, a user by username prefix. A shorter one would name most
 * of a large shop (every key whose tag starts with "A", every product with an "a" in its name), so it
 * matches whole values only: a product's keyTag or whole name, a user's whole username.
 */
const searchSlots = (search: string) => {
  const keyPrefix = search.toUpperCase();
  const namePrefix = search.toLowerCase();
  if (search.length < SHORT_SEARCH) {
    return {
      keyFrom: keyPrefix,
      // An empty range: no key is this short.
      keyTo: keyPrefix,
      ...noTagGap(keyPrefix),
      nameFrom: namePrefix,
      nameTo: exactEnd(namePrefix),
      pattern: likeExactly(search),
    };
  }
  return {
    keyFrom: keyPrefix,
    keyTo: prefixEnd(keyPrefix),
    // A search without a dash may be a keyTag: its keys (`TAG-…`) are the gap (ownerPage).
    ...(keyPrefix.includes('-') ? noTagGap(prefixEnd(keyPrefix)) : tagGap(keyPrefix)),
    nameFrom: namePrefix,
    nameTo: prefixEnd(namePrefix),
    pattern: likeContains(search),
  };
};

/** The keys of tag `tag` (`TAG-…`): a range inside the key prefix range of a search for `tag`. */
const tagGap = (tag: string) => ({ gapTag: tag, gapFrom: `${tag}-`, gapTo: prefixEnd(`${tag}-`) });
/** No gap: an empty range at the key range's end (`keyTo`). */
const noTagGap = (keyTo: string) => ({ gapTag: '', gapFrom: keyTo, gapTo: keyTo });

/** What a page of the admin key list is built from: structure only, never a caller's value. */
type ListShape = { reseller: boolean; status: KeyStatus | null; product: boolean; search: boolean };

/**
 * Which keys a viewer may manage, and which of them the filters pick (all but the search). The
 * owner: all of them. A reseller: the keys they created (slot `viewer`), which are the keys they
 * bought for customers (and their own purchases), while they still reach them (`resellerReach`);
 * never anyone else's.
 */
function listFilters(shape: ListShape) {
  // A reseller's keys and a search's matches are few: the status filters them, it does not drive.
  const narrowed = shape.reseller || shape.search;
  return and(
    shape.reseller ? and(eq(licenseKeys.createdBy, slot('viewer')), resellerReach(slot('viewer'))) : undefined,
    shape.status ? effectiveStatusIs(shape.status, slot('now'), { narrowed }) : undefined,
    shape.product ? eq(licenseKeys.productId, slot('product')) : undefined,
  );
}

/** A search's matches or a reseller's keys: the page and the total from one pass over them. */
const matchesPage = compiledStatement((db: DB, shape: ListShape) =>
  shape.search
    ? keysPageAndTotalQuery(searchMatches(db, listFilters(shape)), slot('now'), { materialize: true })
    : keysPageAndTotalQuery(keyMatches(db, listFilters(shape)), slot('now')),
);

/** The owner's search, or the owner's list of one product: its shape (structure only). */
type OwnerShape = { status: KeyStatus | null; search: boolean };

/**
 * The products whose keys the owner's page lists whole: the ones a search names by name or keyTag,
 * or the one product asked for (slot `product`). Their keys are counted from product_key_counts and
 * paged from license_keys_product_idx, never walked.
 */
const matchedProducts = (db: DB, search: boolean) =>
  db
    .select({ id: products.id })
    .from(products)
    .where(search ? or(likeSql(products.name, slot('pattern')), eq(products.keyTag, slot('keyFrom'))) : eq(products.id, slot('product')));

/**
 * A key of a matched product, tested on a key found by another index (the lapsed range of
 * license_keys_expiry_idx): the unary + keeps SQLite off license_keys_product_idx for it, and the
 * range is not walked at all when the search matched no product.
 */
const inMatched = sql`EXISTS (SELECT 1 FROM "matched") AND +${licenseKeys.productId} IN (SELECT id FROM "matched")`;

/** A stored status as SQL text (a value of the enum, never a caller's). */
const statusLiteral = (status: KeyStatus) => sql.raw(`'${status}'`);

/**
 * The matched products' newest keys that the page may show: for each product and each stored status
 * the filter takes, its newest `upTo` (the pages up to this one) from license_keys_product_idx
 * (product, status, creation), so a walk stops after them whatever the product's size. A used or
 * available key whose expiry has passed is skipped on the way (few: the cron marks them) and, for
 * the expired filter, joins the marked ones from the short lapsed range of license_keys_expiry_idx.
 */
function productNewest(status: KeyStatus | null): SQL {
  const newest = (stored: KeyStatus, live: boolean) =>
    sql`SELECT nk.rowid AS r FROM "matched" mp JOIN ${licenseKeys} nk ON nk.rowid IN (SELECT w.rowid FROM ${licenseKeys} w WHERE w.product_id = mp.id AND w.status = ${statusLiteral(stored)}${
      live ? sql` AND (w.expires_at IS NULL OR w.expires_at > ${slot('now')})` : sql``
    } ORDER BY w.created_at DESC, w.id DESC LIMIT ${runtimeNumber(slot('upTo'))})`;
  const lapsed = sql`SELECT lk.rowid AS r FROM ${licenseKeys} lk WHERE lk.status IN ('used', 'available') AND lk.expires_at <= ${slot('now')} AND EXISTS (SELECT 1 FROM "matched") AND +lk.product_id IN (SELECT id FROM "matched")`;
  const arms =
    status === null
      ? KEY_STATUSES.map((stored) => newest(stored, false))
      : status === 'expired'
        ? [newest('expired', false), lapsed]
        : [newest(status, status !== 'revoked')];
  return sql.join(arms, sql` UNION ALL `);
}

/**
 * The keys a search's other forms match outside the matched products, with the status filter: a key
 * by prefix, a buyer or creator by username prefix (searchMatches). These are few, so they are found
 * whole, for the page and for the total. A search for a keyTag would find that product's keys again
 * by prefix (`TAG-…`): that range (the gap) is walked only when key_tag_counts holds a key under the
 * tag of a product the search did not match (a tag changed and taken again, an imported key).
 */
function otherMatches(db: DB, status: KeyStatus | null) {
  const namedUsers = db
    .select({ id: users.id })
    .from(users)
    .where(inPrefixRange(sql`lower(${users.username})`, slot('nameFrom'), slot('nameTo')));
  const filters = listFilters({ reseller: false, status, product: false, search: true });
  const outside = sql`${licenseKeys.productId} NOT IN (SELECT id FROM "matched")`;
  const arm = (match: SQL | undefined) =>
    db
      .select({ r: sql<number>`${licenseKeys}.rowid`.as('r') })
      .from(licenseKeys)
      .where(and(match, filters, outside));
  const foreignUnderTag = sql`EXISTS (SELECT 1 FROM ${keyTagCounts} WHERE ${keyTagCounts.tag} = ${slot('gapTag')} AND ${keyTagCounts.n} > 0 AND ${keyTagCounts.productId} NOT IN (SELECT id FROM "matched"))`;
  return union(
    arm(inPrefixRange(licenseKeys.key, slot('keyFrom'), slot('gapFrom'))),
    arm(inPrefixRange(licenseKeys.key, slot('gapTo'), slot('keyTo'))),
    // The guard ends the range where it starts unless it holds: as a bound it is tested once, before
    // the walk (as a filter, SQLite would test it on each key of the range).
    arm(
      inPrefixRange(
        licenseKeys.key,
        slot('gapFrom'),
        sql`(CASE WHEN ${foreignUnderTag} THEN ${slot('gapTo')} ELSE ${slot('gapFrom')} END)`,
      ),
    ),
    arm(inArray(licenseKeys.purchasedBy, namedUsers)),
    arm(inArray(licenseKeys.createdBy, namedUsers)),
  );
}

/**
 * The owner's search, or list of one product, in one statement whose rows read follow the page, the
 * matched products' count and the other forms' few matches, never a matched product's keys: the
 * page is taken from each form's newest keys (productNewest, otherMatches), and the total is the
 * matched products' counts (product_key_counts, by stored status, beside their lapsed keys: countsOf
 * moves those to expired) plus the other forms' matches, which lie outside those products.
 */
const ownerByProducts = compiledStatement((db: DB, shape: OwnerShape) => {
  const others = shape.search ? otherMatches(db, shape.status) : undefined;
  const candidates = others
    ? sql`(SELECT r FROM "others" UNION ALL ${productNewest(shape.status)})`
    : sql`(${productNewest(shape.status)})`;
  const stored = db
    .select({ status: productKeyCounts.status, n: sql<number>`sum(${productKeyCounts.n})`.as('n') })
    .from(productKeyCounts)
    .where(sql`${productKeyCounts.productId} IN (SELECT id FROM "matched")`)
    .groupBy(productKeyCounts.status);
  // Only a status filter moves the lapsed keys (the total of all statuses is the stored counts').
  const lapsed = lapsedKeys(db, inMatched, slot('now'), {});
  const asJson = (rows: SQLWrapper) => rowsAsJson(rows, ['status', 'n']);
  return sqlStatement(sql`WITH "matched" AS MATERIALIZED ${matchedProducts(db, shape.search)}${others ? sql`, "others" AS MATERIALIZED ${others}` : sql``}
    SELECT ${candidatesPageJsonSql(candidates, slot('now'))} AS "json",
      ${asJson(stored)} AS "stored",
      ${shape.status ? asJson(lapsed) : sql`'[]'`} AS "lapsed",
      ${others ? sql`(SELECT count(*) FROM "others")` : sql`0`} AS "others"`);
});

/**
 * The owner's page of all keys, or of all keys of one status, beside its total: the Overview's key
 * counts (shop_counts and the lapsed keys, admin-stats.ts) in a column of the same statement,
 * instead of walking a status's keys.
 */
const ownerPage = compiledStatement((db: DB, shape: { status: KeyStatus | null }) => {
  const pageIds =
    shape.status === 'expired'
      ? expiredPageIds(db)
      : db
          .select({ id: licenseKeys.id })
          .from(licenseKeys)
          .where(listFilters({ reseller: false, status: shape.status, product: false, search: false }))
          .orderBy(...NEWEST_FIRST)
          .limit(runtimeLimit(slot('limit')))
          .offset(runtimeLimit(slot('offset')));
  return sqlStatement(
    sql`SELECT ${keysJsonStatement(db, pageIds, slot('now'))} AS "json", ${shopKeyCountsJson(db, slot('now'))} AS "counts"`,
  );
});

/**
 * A page of every expired key, newest first. Expired keys are the ones marked so and the used or
 * available ones whose expiry has passed since the scheduled job last ran, so no one index holds
 * them in date order, and walking all keys newest first reads thousands of rows to reach page 10
 * (expired keys are the old ones). Instead: as many marked keys as the pages up to this one need
 * (slot `upTo`), newest first from license_keys_status_idx alone, beside the few lapsed ones (a
 * range of license_keys_expiry_idx), sorted together.
 */
function expiredPageIds(db: DB) {
  const marked = db
    .select({ id: licenseKeys.id, createdAt: licenseKeys.createdAt })
    .from(licenseKeys)
    .where(eq(licenseKeys.status, 'expired'))
    .orderBy(...NEWEST_FIRST)
    .limit(runtimeLimit(slot('upTo')));
  const lapsed = db
    .select({ id: licenseKeys.id, createdAt: licenseKeys.createdAt })
    .from(licenseKeys)
    .where(and(inArray(licenseKeys.status, ['used', 'available']), passedAt(licenseKeys.expiresAt, slot('now'))));
  return db
    .select({ id: sql<string>`"id"` })
    .from(sql`(SELECT * FROM ${marked} UNION ALL SELECT * FROM ${lapsed})`)
    .orderBy(sql`"created_at" DESC`, sql`"id" DESC`)
    .limit(runtimeLimit(slot('limit')))
    .offset(runtimeLimit(slot('offset')));
}

/** Whether the owner's page takes its total from the Overview's key counts (no search, no product). */
const countedByOverview = (viewer: Pick<Actor, 'role'>, query: AdminKeysQuery) =>
  viewer.role === 'owner' && !query.search && !query.product;

/** Whether the owner's page is a search or one product's keys (not both): ownerByProducts. */
const countedByProducts = (viewer: Pick<Actor, 'role'>, query: AdminKeysQuery) =>
  viewer.role === 'owner' && !query.search !== !query.product;

/** The statement that answers a page of the admin key list (the query-plan tests read it too). */
export function adminKeysStatement(db: DB, viewer: Actor, query: AdminKeysQuery, now = Date.now()) {
  const offset = (query.page - 1) * query.limit;
  const values = {
    viewer: viewer.id,
    now,
    product: query.product ?? null,
    limit: query.limit,
    offset,
    upTo: offset + query.limit,
    ...(query.search ? searchSlots(query.search) : {}),
  };
  const status = query.status ?? null;
  if (countedByOverview(viewer, query)) return ownerPage(db, { status }, values);
  if (countedByProducts(viewer, query)) return ownerByProducts(db, { status, search: !!query.search }, values);
  return matchesPage(db, { reseller: viewer.role !== 'owner', status, product: !!query.product, search: !!query.search }, values);
}

/** A page of the admin key list as JSON (SQLite writes the keys, license-keys.ts), with its total. */
export async function listAdminKeys(db: DB, viewer: Actor, query: AdminKeysQuery, now = Date.now()): Promise<JsonText<AdminKeysResponse>> {
  const statement = adminKeysStatement(db, viewer, query, now);
  if (countedByOverview(viewer, query)) {
    const [[row]] = (await runBatch(db, [statement])) as [[{ json: string; counts: string }]];
    const counts = readCountedJson(row.counts);
    return keyListJson(row.json, query.status ? counts[query.status] : keyCountsTotal(counts), query.limit);
  }
  if (countedByProducts(viewer, query)) {
    const [[row]] = (await runBatch(db, [statement])) as [[{ json: string; stored: string; lapsed: string; others: number }]];
    const counts = countsOf(JSON.parse(row.stored) as StatusCount[], JSON.parse(row.lapsed) as StatusCount[]);
    const total = (query.status ? counts[query.status] : keyCountsTotal(counts)) + row.others;
    return keyListJson(row.json, total, query.limit);
  }
  const { keysJson, total } = await keysPageJson(db, statement);
  return keyListJson(keysJson, total, query.limit);
}

export const findKey = (db: DB, id: string) => db.select().from(licenseKeys).where(eq(licenseKeys.id, id)).get();

export async function requireKey(db: DB, id: string) {
  const row = await findKey(db, id);
  if (!row) throw notFound('License key');
  return row;
}

const alreadyRevoked = () => new AppError('CONFLICT', 'This license key is already revoked');

/** Revokes a key with the owner's reason; its devices stop validating at once. */
export async function revokeKey(admin: KeyAdmin, id: string, reason: string, now = Date.now()): Promise<LicenseKey> {
  const { db, actor, ip } = admin;
  const before = await requireKey(db, id);
  if (before.status === 'revoked') throw alreadyRevoked();
  const guard = and(eq(licenseKeys.id, id), ne(licenseKeys.status, 'revoked'))!;
  const audit = auditStatement(
    db,
    actor,
    'key.revoke',
    { type: 'license_key', id },
    { key: before.key, product: before.productName, previousStatus: effectiveStatus(before, now), reason },
    ip,
    sql`EXISTS (SELECT 1 FROM ${licenseKeys} WHERE ${guard})`,
  );
  const revoke = db
    .update(licenseKeys)
    .set({ status: 'revoked', revokeReason: reason, revokedAt: new Date(now) })
    .where(guard);
  const results = await runBatch(db, [
    audit,
    revoke,
    keyEvents('key.revoked', [id], now, ` AND k.status = 'revoked' AND k.revoked_at = ?2`),
  ]);
  await dispatchCommitted(results, db);
  const result = results[1];
  if ((result as D1Result).meta.changes === 0) {
    // Revoked or deleted by another request a moment ago.
    if (!(await findKey(db, id))) throw notFound('License key');
    throw alreadyRevoked();
  }
  const [json] = await licenseKeysJson(db, [(await findKey(db, id))!], now);
  return json;
}

type DeletedKey = Pick<typeof licenseKeys.$inferSelect, 'id' | 'key' | 'productId' | 'productName' | 'status' | 'purchasedBy'>;

const describeDeleted = (k: DeletedKey) => ({ id: k.id, key: k.key, product: k.productName, status: k.status, purchasedBy: k.purchasedBy });

/**
 * Deletes keys for good in one batch with the audit row. Their devices go with them and uncount on
 * their products (triggers, migration 0015), so the product cards stay right.
 */
async function deleteKeyRows(admin: KeyAdmin, keys: DeletedKey[], audit: ReturnType<typeof auditStatement>): Promise<number> {
  const { db } = admin;
  // RETURNING counts the keys alone: D1's `changes` also counts what the triggers removed.
  const deletes = chunks(keys).map((chunk) =>
    db
      .delete(licenseKeys)
      .where(
        inArray(
          licenseKeys.id,
          chunk.map((k) => k.id),
        ),
      )
      .returning({ id: licenseKeys.id }),
  );
  const event = keyEvents(
    'key.deleted',
    keys.map((k) => k.id),
  );
  const results = await runBatch(db, [event, audit, ...deletes]);
  await dispatchCommitted(results, db);
  return results.slice(2).reduce((n: number, rows) => n + (rows as unknown[]).length, 0);
}

export async function deleteKey(admin: KeyAdmin, id: string): Promise<void> {
  const { db, actor, ip } = admin;
  const key = await requireKey(db, id);
  const audit = auditStatement(
    db,
    actor,
    'key.delete',
    { type: 'license_key', id },
    describeDeleted(key),
    ip,
    sql`EXISTS (SELECT 1 FROM ${licenseKeys} WHERE ${licenseKeys.id} = ${id})`,
  );
  if ((await deleteKeyRows(admin, [key], audit)) === 0) throw notFound('License key');
}

/**
 * Deletes the chosen keys that still exist, with one audit row naming each of them and the reason.
 * Ids that name no key are reported back, not an error, unless none of them names a key.
 */
export async function bulkDeleteKeys(admin: KeyAdmin, ids: string[], reason: string): Promise<{ deleted: number; notFound: string[] }> {
  const { db, actor, ip } = admin;
  const fields = {
    id: licenseKeys.id,
    key: licenseKeys.key,
    productId: licenseKeys.productId,
    productName: licenseKeys.productName,
    status: licenseKeys.status,
    purchasedBy: licenseKeys.purchasedBy,
  };
  const found: DeletedKey[] = (
    await Promise.all(chunks(ids).map((chunk) => db.select(fields).from(licenseKeys).where(inArray(licenseKeys.id, chunk)).all()))
  ).flat();
  const foundIds = new Set(found.map((k) => k.id));
  const missing = ids.filter((id) => !foundIds.has(id));
  if (found.length === 0) throw notFound('License keys');
  const audit = auditStatement(
    db,
    actor,
    'keys.bulk_delete',
    { type: 'license_key', id: null },
    { reason, count: found.length, keys: found.map(describeDeleted) },
    ip,
  );
  const deleted = await deleteKeyRows(admin, found, audit);
  return { deleted, notFound: missing };
}

/**
 * The owner releases a floating seat at once (the details modal's release button): its lease, and
 * any borrow, end now, so the next device may take it. Not counted against the key's swap budget;
 * audited, and sent as license.seat_released.
 */
export async function releaseKeySeat(admin: KeyAdmin, keyId: string, activationId: string, now = Date.now()): Promise<LicenseKey> {
  const { db, actor, ip } = admin;
  const key = await requireKey(db, keyId);
  const live = and(eq(activations.id, activationId), eq(activations.keyId, keyId), gt(activations.leaseExpiresAt, new Date(now)));
  const seat = await db.select().from(activations).where(live).get();
  if (!seat) throw notFound('Seat');
  const audit = auditStatement(
    db,
    actor,
    'key.release_seat',
    { type: 'license_key', id: keyId },
    {
      key: key.key,
      activationId,
      deviceFingerprint: seat.deviceFingerprint,
      leaseExpiresAt: seat.leaseExpiresAt?.toISOString() ?? null,
      borrowedUntil: seat.borrowedUntil?.toISOString() ?? null,
    },
    ip,
    sql`EXISTS (SELECT 1 FROM ${activations} WHERE ${live})`,
  );
  const [, released, event] = await runBatch(db, [
    audit,
    db
      .update(activations)
      .set({ leaseExpiresAt: new Date(now), borrowedUntil: null })
      .where(live)
      .returning({ id: activations.id }),
    activationEvent('license.seat_released', activationId, now, { sql: ' AND changes() = 1', params: [] }),
  ]);
  await dispatchCommitted([event], db);
  if ((released as unknown[]).length === 0) throw notFound('Seat');
  const [json] = await licenseKeysJson(db, [(await findKey(db, keyId)) ?? key], now);
  return json;
}

/** The owner frees one device slot of a key (the details modal's remove button). */
export async function removeKeyActivation(admin: KeyAdmin, keyId: string, activationId: string): Promise<LicenseKey> {
  const { db, actor, ip } = admin;
  const key = await requireKey(db, keyId);
  const activation = await db
    .select()
    .from(activations)
    .where(and(eq(activations.id, activationId), eq(activations.keyId, keyId)))
    .get();
  if (!activation) throw notFound('Activation');
  const removed = await removeActivation(db.$client, {
    keyId,
    activationId,
    fingerprint: activation.deviceFingerprint,
    // A floating device's tokens end with its lease.
    tokensUntil: activation.leaseExpiresAt?.getTime(),
  });
  if (!removed) throw notFound('Activation');
  await recordAudit(
    db,
    actor,
    'key.remove_activation',
    { type: 'license_key', id: keyId },
    {
      key: key.key,
      activationId,
      deviceFingerprint: activation.deviceFingerprint,
      deviceInfo: activation.deviceInfo ?? null,
      slotFreesAt: new Date(removed.slotFreesAt).toISOString(),
    },
    ip,
  );
  const [json] = await licenseKeysJson(db, [(await findKey(db, keyId)) ?? key]);
  return json;
}

/**
 * The owner frees a slot that a released device still holds, at once: that device may carry an
 * offline token until the slot's `freesAt`, which the owner accepts by releasing it (audited).
 */
export async function releaseHeldSlot(admin: KeyAdmin, keyId: string, slotId: string, now = Date.now()): Promise<LicenseKey> {
  const { db, actor, ip } = admin;
  const key = await requireKey(db, keyId);
  const held = and(eq(heldSlots.id, slotId), eq(heldSlots.keyId, keyId), gt(heldSlots.freesAt, new Date(now)));
  const slot = await db.select().from(heldSlots).where(held).get();
  if (!slot) throw notFound('Held slot');
  const details = {
    key: key.key,
    slotId,
    deviceFingerprint: slot.deviceFingerprint,
    releasedAt: slot.releasedAt.toISOString(),
    freesAt: slot.freesAt.toISOString(),
  };
  // The audit row only if the slot is still there, in the batch that deletes it.
  const audit = auditStatement(
    db,
    actor,
    'key.release_slot',
    { type: 'license_key', id: keyId },
    details,
    ip,
    sql`EXISTS (SELECT 1 FROM ${heldSlots} WHERE ${held})`,
  );
  const [, removed] = await db.batch([audit, db.delete(heldSlots).where(held).returning({ id: heldSlots.id })]);
  if (removed.length === 0) throw notFound('Held slot');
  const [json] = await licenseKeysJson(db, [(await findKey(db, keyId)) ?? key], now);
  return json;
}
