// The owner's reseller tiers: what each sells, at what discount, for what commission, how many keys a
// day, and which reseller is in which. Each change is one batch with its audit row. The purchase's
// guard (trigger license_keys_reseller_terms, migration 0021) reads the tier as it is when the key is
// inserted, so a tier changed a moment ago holds for the next key.
import { and, eq, sql } from 'drizzle-orm';
import { rawSql, runBatch, sqlRows, type DB } from '../../platform/db/client';
import { resellerTiers, users, type Actor } from '../../platform/db/schema';
import { AppError, notFound } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { auditStatement } from '../audit';
import type { ResellerTier, ResellerTierParsed } from './schemas';

export type TierRow = typeof resellerTiers.$inferSelect;
export type OwnerContext = { db: DB; actor: Actor; ip: string | null };

export function toTierJson(t: TierRow, resellers = 0): ResellerTier {
  return {
    _id: t.id,
    name: t.name,
    discountPercent: t.discountPercent,
    commissionPercent: t.commissionPercent,
    productIds: t.productIds,
    dailyKeyCap: t.dailyKeyCap,
    isDefault: t.isDefault,
    resellers,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt ? t.updatedAt.toISOString() : null,
  };
}

/** Every tier, default first then by name, with how many resellers each holds (its own and, for the default, the rest). */
export async function listTiers(db: DB): Promise<ResellerTier[]> {
  const [tiers, counts] = (await runBatch(db, [
    db
      .select()
      .from(resellerTiers)
      .orderBy(sql`${resellerTiers.isDefault} DESC`, sql`lower(${resellerTiers.name})`),
    rawSql(
      `SELECT coalesce(u.reseller_tier_id, (SELECT id FROM reseller_tiers WHERE is_default = 1)) AS tier_id, count(*) AS n
         FROM users u WHERE u.role = 'reseller' GROUP BY tier_id`,
    ),
  ])) as [TierRow[], Array<{ tier_id: string | null; n: number }>];
  const perTier = new Map(counts.map((c) => [c.tier_id, c.n]));
  return tiers.map((t) => toTierJson(t, perTier.get(t.id) ?? 0));
}

export const findTier = (db: DB, id: string) => db.select().from(resellerTiers).where(eq(resellerTiers.id, id)).get();

const nameTaken = () => new AppError('CONFLICT', 'A tier with this name already exists', { details: { field: 'name' } });

/** Refuses product ids that name no product, so a tier never silently sells nothing. */
async function assertProductsExist(db: DB, productIds: string[] | null) {
  if (!productIds) return;
  const results = await sqlRows<{ id: string }>(
    db,
    rawSql(`SELECT value AS id FROM json_each(?1) WHERE value NOT IN (SELECT id FROM products)`, JSON.stringify(productIds)),
  );
  if (results.length)
    throw new AppError('VALIDATION_ERROR', `Unknown product: ${results[0].id}`, {
      details: { field: 'productIds', productId: results[0].id },
    });
}

function uniqueNameClash(err: unknown) {
  const text = String((err as Error)?.message) + String((err as { cause?: Error })?.cause?.message ?? '');
  return text.includes('UNIQUE') && text.includes('reseller_tiers');
}

/** The audit row's picture of a tier. */
const tierDetails = (t: Omit<ResellerTierParsed, 'isDefault'> & { isDefault: boolean }) => ({
  name: t.name,
  discountPercent: t.discountPercent,
  commissionPercent: t.commissionPercent,
  productIds: t.productIds,
  dailyKeyCap: t.dailyKeyCap,
  isDefault: t.isDefault,
});

export async function createTier(owner: OwnerContext, input: ResellerTierParsed): Promise<ResellerTier> {
  const { db, actor, ip } = owner;
  await assertProductsExist(db, input.productIds);
  const now = new Date();
  const id = newId(now.getTime());
  try {
    await db.batch([
      // A new default takes the place of the old one.
      db
        .update(resellerTiers)
        .set({ isDefault: false })
        .where(and(eq(resellerTiers.isDefault, true), sql`${input.isDefault ? 1 : 0} = 1`)),
      db.insert(resellerTiers).values({ id, ...input, createdAt: now }),
      auditStatement(db, actor, 'reseller_tier.create', { type: 'reseller_tier', id }, tierDetails(input), ip),
    ]);
  } catch (err) {
    if (uniqueNameClash(err)) throw nameTaken();
    throw err;
  }
  return (await listTiers(db)).find((t) => t._id === id)!;
}

export async function updateTier(owner: OwnerContext, id: string, input: ResellerTierParsed): Promise<ResellerTier> {
  const { db, actor, ip } = owner;
  const before = await findTier(db, id);
  if (!before) throw notFound('Tier');
  await assertProductsExist(db, input.productIds);
  const exists = eq(resellerTiers.id, id);
  try {
    const [, , updated] = await db.batch([
      auditStatement(
        db,
        actor,
        'reseller_tier.update',
        { type: 'reseller_tier', id },
        { before: tierDetails(before), after: tierDetails(input) },
        ip,
        sql`EXISTS (SELECT 1 FROM ${resellerTiers} WHERE ${exists})`,
      ),
      db
        .update(resellerTiers)
        .set({ isDefault: false })
        .where(and(eq(resellerTiers.isDefault, true), sql`${input.isDefault ? 1 : 0} = 1`, sql`${resellerTiers.id} != ${id}`)),
      db
        .update(resellerTiers)
        .set({ ...input, updatedAt: new Date() })
        .where(exists),
    ]);
    if (updated.meta.changes === 0) throw notFound('Tier');
  } catch (err) {
    if (uniqueNameClash(err)) throw nameTaken();
    throw err;
  }
  return (await listTiers(db)).find((t) => t._id === id)!;
}

/** Deletes a tier; its resellers go to the default tier (or to none, and the settings' discount). */
export async function deleteTier(owner: OwnerContext, id: string): Promise<void> {
  const { db, actor, ip } = owner;
  const before = await findTier(db, id);
  if (!before) throw notFound('Tier');
  const [, , deleted] = await db.batch([
    auditStatement(db, actor, 'reseller_tier.delete', { type: 'reseller_tier', id }, tierDetails(before), ip),
    db.update(users).set({ resellerTierId: null }).where(eq(users.resellerTierId, id)),
    db.delete(resellerTiers).where(eq(resellerTiers.id, id)),
  ]);
  if (deleted.meta.changes === 0) throw notFound('Tier');
}

/** Puts a reseller in a tier (null: the default). Audited; only an account with the reseller role. */
export async function setResellerTier(owner: OwnerContext, resellerId: string, tierId: string | null): Promise<void> {
  const { db, actor, ip } = owner;
  const [[reseller], [tier]] = await db.batch([
    db.select({ username: users.username, role: users.role, tierId: users.resellerTierId }).from(users).where(eq(users.id, resellerId)),
    db
      .select({ name: resellerTiers.name })
      .from(resellerTiers)
      .where(eq(resellerTiers.id, tierId ?? '')),
  ]);
  if (!reseller) throw notFound('Reseller');
  if (reseller.role !== 'reseller')
    throw new AppError('CONFLICT', `${reseller.username} is not a reseller: only resellers have a tier`, { details: { field: 'id' } });
  if (tierId !== null && !tier) throw new AppError('VALIDATION_ERROR', 'Tier not found', { details: { field: 'tierId' } });
  // The reseller and the tier must both still be there when it is written: a deleted tier leaves no reseller in it.
  const guard = and(
    eq(users.id, resellerId),
    eq(users.role, 'reseller'),
    tierId === null ? undefined : sql`EXISTS (SELECT 1 FROM ${resellerTiers} WHERE ${resellerTiers.id} = ${tierId})`,
  )!;
  const [, updated] = await db.batch([
    auditStatement(
      db,
      actor,
      'reseller.tier_changed',
      { type: 'user', id: resellerId },
      { username: reseller.username, from: reseller.tierId, to: tierId, tier: tier?.name ?? null },
      ip,
      sql`EXISTS (SELECT 1 FROM ${users} WHERE ${guard})`,
    ),
    db.update(users).set({ resellerTierId: tierId }).where(guard),
  ]);
  if (updated.meta.changes === 0) throw new AppError('CONFLICT', 'The reseller or the tier changed meanwhile; reload and try again');
}
