// The keys a customer bought (GET /api/users/my-keys). The buyer index narrows to this customer's
// keys (hundreds at most), so the substring search over key, product name and keyTag stays cheap.
import { and, count, desc, eq, or, sql } from 'drizzle-orm';
import type { DB } from '../db/client';
import { licenseKeys } from '../db/schema';
import type { MyKeysResponse } from '../schemas/entities';
import type { MyKeysQuery } from '../schemas/keys';
import { effectiveStatusIs, licenseKeysJson, likeContains, likeEscape } from './license-keys';

export async function listOwnKeys(db: DB, userId: string, query: MyKeysQuery, now = Date.now()): Promise<MyKeysResponse> {
  const { page, limit, search, status } = query;
  const pattern = search ? likeContains(search) : null;
  const where = and(
    eq(licenseKeys.purchasedBy, userId),
    status ? effectiveStatusIs(status, now, { narrowed: true }) : undefined,
    pattern
      ? or(
          sql`${licenseKeys.key} LIKE ${pattern} ${likeEscape}`,
          sql`${licenseKeys.productName} LIKE ${pattern} ${likeEscape}`,
          sql`${licenseKeys.productKeyTag} LIKE ${pattern} ${likeEscape}`,
        )
      : undefined,
  );
  // The page and the total in one D1 round trip.
  const [rows, totals] = await db.batch([
    db
      .select()
      .from(licenseKeys)
      .where(where)
      .orderBy(desc(licenseKeys.createdAt), desc(licenseKeys.id))
      .limit(limit)
      .offset((page - 1) * limit),
    db.select({ n: count() }).from(licenseKeys).where(where),
  ]);
  const total = totals[0]?.n ?? 0;
  return { keys: await licenseKeysJson(db, rows, now), totalPages: Math.ceil(total / limit), total };
}
