// The keys a customer bought (GET /api/users/my-keys). The buyer index narrows to this customer's
// keys (hundreds at most), so the substring search over key, product name and keyTag stays cheap.
// The page and its total are one statement (SQLite writes the JSON), compiled once per shape, in a
// batch the session's checks can open.
import { and, eq, or } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { compiledStatement, slot } from '../../platform/db/compiled';
import { licenseKeys } from '../../platform/db/schema';
import type { JsonText } from '../../platform/request';
import type { MyKeysQuery } from './schemas/keys';
import { effectiveStatusIs, keyListJson, keyMatches, keysPageAndTotalQuery, keysPageJson, likeContains, likeSql } from './license-keys';
import { type KeyStatus } from '../../platform/vocabulary';
import { type MyKeysResponse } from './schemas/answers';

/** Slots: buyer, now, limit, offset, and pattern with a search. */
const ownKeysPage = compiledStatement((db: DB, shape: { status: KeyStatus | null; search: boolean }) => {
  const pattern = slot('pattern');
  const where = and(
    eq(licenseKeys.purchasedBy, slot('buyer')),
    shape.status ? effectiveStatusIs(shape.status, slot('now'), { narrowed: true }) : undefined,
    shape.search
      ? or(likeSql(licenseKeys.key, pattern), likeSql(licenseKeys.productName, pattern), likeSql(licenseKeys.productKeyTag, pattern))
      : undefined,
  );
  return keysPageAndTotalQuery(keyMatches(db, where), slot('now'), { materialize: shape.search });
});

export async function listOwnKeys(db: DB, userId: string, query: MyKeysQuery, now = Date.now()): Promise<JsonText<MyKeysResponse>> {
  const { page, limit, search, status } = query;
  const statement = ownKeysPage(
    db,
    { status: status ?? null, search: !!search },
    { buyer: userId, now, limit, offset: (page - 1) * limit, pattern: search ? likeContains(search) : null },
  );
  const { keysJson, total } = await keysPageJson(db, statement);
  return keyListJson(keysJson, total, limit);
}
