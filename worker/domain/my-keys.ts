// The keys a customer bought (GET /api/users/my-keys). The buyer index narrows to this customer's
// keys (hundreds at most), so the substring search over key, product name and keyTag stays cheap.
// The page and its total are one statement (SQLite writes the JSON), in a batch the session's checks can open.
import { and, eq, or, sql } from 'drizzle-orm';
import { plainBatch, type DB, type RunBatch } from '../db/client';
import { licenseKeys } from '../db/schema';
import type { JsonText } from '../lib/request';
import type { MyKeysResponse } from '../schemas/entities';
import type { MyKeysQuery } from '../schemas/keys';
import { effectiveStatusIs, keyListJson, keysPageJson, likeContains, likeEscape } from './license-keys';

export async function listOwnKeys(db: DB, userId: string, query: MyKeysQuery, run: RunBatch = plainBatch(db), now = Date.now()): Promise<JsonText<MyKeysResponse>> {
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
  const { keysJson, total } = await keysPageJson(db, run, { where, limit, offset: (page - 1) * limit }, now);
  return keyListJson(keysJson, total, limit);
}
