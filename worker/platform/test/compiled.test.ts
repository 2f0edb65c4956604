// Statements compiled once per shape (platform/db/compiled.ts): the text is written once, the values are the call's own.
import { and, asc, eq, gt } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { runBatch, SqlStatement } from '../db/client';
import { compiledStatement, runtimeLimit, slot } from '../db/compiled';
import { licenseKeys, users } from '../db/schema';
import { likeContains, likeSql } from '../../modules/keys/license-keys';
import { listOwnKeys } from '../../modules/keys/my-keys';
import { createUser } from '../../modules/accounts/users';
import { myKeysQuerySchema } from '../../modules/keys/schemas/keys';
import { db, uniqueName } from '../../test/helpers';
import { sold } from '../../test/key-admin-helpers';
import { makeProduct } from '../../test/shop-helpers';

const newUser = (prefix: string, credits = 0) => {
  const username = uniqueName(prefix);
  return createUser(db(), { username, email: `${username}@example.com`, password: null, credits });
};

describe('compiledStatement', () => {
  it('writes each shape once and fills every call with its own values', async () => {
    let builds = 0;
    const byName = compiledStatement((d, shape: { active: boolean }) => {
      builds++;
      return d
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.username, slot('name')), shape.active ? eq(users.isActive, true) : undefined));
    });
    const [a, b] = [await newUser('ca'), await newUser('cb')];
    const first = byName(db(), { active: true }, { name: a.username });
    const second = byName(db(), { active: true }, { name: b.username });
    expect(first).toBeInstanceOf(SqlStatement);
    expect(second.text).toBe(first.text);
    expect(builds).toBe(1);
    expect(first.params).toEqual([a.username, 1]);
    expect(second.params).toEqual([b.username, 1]);
    const [rowsA, rowsB] = (await runBatch(db(), [first, second])) as { id: string }[][];
    expect(rowsA).toEqual([{ id: a.id }]);
    expect(rowsB).toEqual([{ id: b.id }]);
    // Another shape is another text.
    expect(byName(db(), { active: false }, { name: a.username }).text).not.toBe(first.text);
    expect(builds).toBe(2);
  });

  it('binds a page and a pattern as values SQLite does not plan with, each call paging and matching with its own', async () => {
    const tag = uniqueName('rt');
    const names = await Promise.all([1, 2, 3, 4, 5].map(async () => (await newUser(tag)).username));
    names.sort();
    const page = compiledStatement((d) =>
      d
        .select({ username: users.username })
        .from(users)
        .where(likeSql(users.username, slot('pattern')))
        .orderBy(asc(users.username))
        .limit(runtimeLimit(slot('limit')))
        .offset(runtimeLimit(slot('offset'))),
    );
    const call = (limit: number, offset: number) => page(db(), {}, { pattern: likeContains(tag), limit, offset });
    // A bare ? there would have SQLite compile the statement again whenever it is bound (platform/db/compiled.ts).
    expect(call(2, 0).text).toMatch(
      /like \('' \|\| \?\) ESCAPE '\\' order by "users"."username" asc limit \(\? \+ 0\) offset \(\? \+ 0\)$/i,
    );
    const [first, second, last] = (await runBatch(db(), [call(2, 0), call(2, 2), call(2, 4)])) as { username: string }[][];
    expect([first, second, last].map((rows) => rows.map((r) => r.username))).toEqual([
      names.slice(0, 2),
      names.slice(2, 4),
      names.slice(4),
    ]);
  });

  it('refuses a call that leaves a slot without a value', () => {
    const after = compiledStatement((d) =>
      d
        .select({ id: licenseKeys.id })
        .from(licenseKeys)
        .where(gt(licenseKeys.createdAt, slot('since'))),
    );
    expect(() => after(db(), {}, {})).toThrow('no value for "since"');
  });

  it('mixes with drizzle queries in one batch, each result in its own form', async () => {
    const user = await newUser('cm');
    const [raw, mapped] = await runBatch(db(), [
      new SqlStatement('SELECT id, is_active FROM users WHERE id = ?1', [user.id]),
      db().select({ id: users.id, isActive: users.isActive }).from(users).where(eq(users.id, user.id)),
    ]);
    expect(raw).toEqual([{ id: user.id, is_active: 1 }]);
    expect(mapped).toEqual([{ id: user.id, isActive: true }]);
  });

  it('keeps each customer to their own keys on lists compiled once (My Keys)', async () => {
    const product = await makeProduct();
    const [one, two] = [await newUser('k1', 10_000), await newUser('k2', 10_000)];
    const [keyOne, keyTwo] = [await sold(product.id, one.id, one.id), await sold(product.id, two.id, two.id)];
    const query = myKeysQuerySchema.parse({});
    const list = async (userId: string) =>
      (JSON.parse(await listOwnKeys(db(), userId, query)) as { keys: { _id: string }[] }).keys.map((k) => k._id);
    expect(await list(one.id)).toEqual([keyOne._id]);
    expect(await list(two.id)).toEqual([keyTwo._id]);
  });
});
