// Last-seen times of every kind, gathered per isolate and written together (platform/touches.ts):
// a device's lastUsed, an API token's lastUsed and a session's lastActive.
import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { activations, apiTokens, sessions } from '../platform/db/schema';
import { newId } from '../platform/ids';
import { liveIsolateCaches } from '../platform/isolate-cache';
import { DAY_MS } from '../platform/vocabulary';
import { TOUCH_BATCH_MAX } from '../platform/touches';
import { LAST_ACTIVE_WRITE_MS, touchSession } from '../modules/accounts/sessions';
import { touchApiToken } from '../modules/accounts/api-tokens';
import { noteDeviceSeen } from '../modules/licensing/licensing';
import { api, db, interceptedD1, liveSessions, signedInUser, TEST_PASSWORD, uniqueName } from './helpers';
import { keysOfProduct, makeProduct } from './shop-helpers';

const IDLE_MS = 7 * DAY_MS;
const HOUR = 60 * 60_000;

/** A session, an API token and a device of one owner, each last seen an hour ago. */
async function seenAnHourAgo() {
  const owner = await signedInUser('owner');
  const created = await api('POST', '/api/users/api-tokens', {
    token: owner.token,
    body: { name: uniqueName('token'), role: 'owner', currentPassword: TEST_PASSWORD },
  });
  expect(created.status).toBe(201);
  const tokenId = (created.body as { apiToken: { _id: string } }).apiToken._id;
  const [session] = await liveSessions(owner.user.id);

  const product = await makeProduct({ maxActivations: 1 });
  const generated = await api('POST', '/api/keys/generate', { token: owner.token, body: { productId: product.id, quantity: 1 } });
  expect(generated.status).toBe(201);
  const [key] = await keysOfProduct(product.id);
  const activated = await api('POST', '/api/v1/licenses/activate', { body: { key: key.key, deviceFingerprint: `touch-${newId()}` } });
  expect(activated.status).toBe(200);
  const activationId = (await db().select().from(activations).where(eq(activations.keyId, key.id)).get())!.id;

  const anHourAgo = new Date(Date.now() - HOUR);
  await db().update(sessions).set({ lastActive: anHourAgo }).where(eq(sessions.id, session.id));
  await db().update(apiTokens).set({ lastUsedAt: anHourAgo }).where(eq(apiTokens.id, tokenId));
  await db().update(activations).set({ lastUsed: anHourAgo }).where(eq(activations.id, activationId));
  // Written an hour ago, as another isolate would have: this one forgets its own marks.
  liveIsolateCaches().get('session-last-touched')?.clear();
  liveIsolateCaches().get('api-token-last-touched')?.clear();
  const grant = { id: tokenId, userId: owner.user.id, role: 'owner' as const, accountRole: 'owner' as const, readOnly: false };
  return { sessionId: session.id, grant, activationId, anHourAgo: anHourAgo.getTime() };
}

const times = async (seen: Awaited<ReturnType<typeof seenAnHourAgo>>) => ({
  session: (await db().select().from(sessions).where(eq(sessions.id, seen.sessionId)).get())!.lastActive.getTime(),
  token: (await db().select().from(apiTokens).where(eq(apiTokens.id, seen.grant.id)).get())!.lastUsedAt!.getTime(),
  device: (await db().select().from(activations).where(eq(activations.id, seen.activationId)).get())!.lastUsed!.getTime(),
});

afterEach(() => vi.restoreAllMocks());

describe('touches', () => {
  it('writes a session, an API token and a device seen together in one round trip, one statement each', async () => {
    const seen = await seenAnHourAgo();
    const batches: string[][] = [];
    const prepared: string[] = [];
    // A binding of its own, so no batch opened by another request carries these touches.
    const d1 = interceptedD1(env.DB, { prepare: (sql) => prepared.push(sql), batch: (statements) => batches.push(statements.map(String)) });
    const now = Date.now();
    const opened = touchSession(d1, seen.sessionId, IDLE_MS, now, 100);
    expect(opened).toBeDefined();
    // The others join the open batch: nothing for their requests to wait on, nothing written yet.
    expect(touchApiToken(d1, seen.grant, now + 1, 100)).toBeUndefined();
    expect(noteDeviceSeen(d1, seen.activationId, now + 2, 100)).toBeNull();
    expect(prepared).toEqual([]);
    await opened;
    expect(batches).toHaveLength(1);
    expect(prepared).toHaveLength(3);
    expect(await times(seen)).toEqual({ session: now, token: now + 1, device: now + 2 });
  });

  it('writes a session or token at most every few minutes from an isolate, and never revives an idle session', async () => {
    const seen = await seenAnHourAgo();
    const d1 = interceptedD1(env.DB, {});
    const now = Date.now();
    await touchSession(d1, seen.sessionId, IDLE_MS, now, 10);
    await touchApiToken(d1, seen.grant, now, 10);
    // Within the interval nothing is due: no batch is even opened.
    expect(touchSession(d1, seen.sessionId, IDLE_MS, now + 60_000, 10)).toBeUndefined();
    expect(touchApiToken(d1, seen.grant, now + 60_000, 10)).toBeUndefined();
    expect(await times(seen)).toMatchObject({ session: now, token: now });

    // A session idle past the limit stays idle: the touch's statement skips it.
    const idle = await seenAnHourAgo();
    const later = Date.now() + LAST_ACTIVE_WRITE_MS;
    await touchSession(d1, idle.sessionId, HOUR / 2, later, 10);
    expect((await times(idle)).session).toBe(idle.anHourAgo);
  });

  it('logs a batch that fails, and makes its sessions and tokens due again at their next use', async () => {
    const seen = await seenAnHourAgo();
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const failing = interceptedD1(env.DB, {
      batch: () => {
        throw new Error('D1 is unreachable');
      },
    });
    const now = Date.now();
    const opened = touchSession(failing, seen.sessionId, IDLE_MS, now, 10);
    // They join the batch the session opened.
    expect(touchApiToken(failing, seen.grant, now, 10)).toBeUndefined();
    expect(noteDeviceSeen(failing, seen.activationId, now, 10)).toBeNull();
    // The request that opened the batch is not failed by it.
    await expect(opened).resolves.toBeUndefined();
    expect(logged).toHaveBeenCalledWith(
      'Last-seen times not written (1 session lastActive, 1 API token lastUsed, 1 device lastUsed): D1 is unreachable',
    );
    expect(await times(seen)).toEqual({ session: seen.anHourAgo, token: seen.anHourAgo, device: seen.anHourAgo });

    // The next use writes them, though it comes within the interval.
    const d1 = interceptedD1(env.DB, {});
    const again = touchSession(d1, seen.sessionId, IDLE_MS, now + 1_000, 10);
    expect(again).toBeDefined();
    expect(touchApiToken(d1, seen.grant, now + 1_000, 10)).toBeUndefined();
    expect(noteDeviceSeen(d1, seen.activationId, now + 1_000, 10)).toBeNull();
    await again;
    expect(await times(seen)).toEqual({ session: now + 1_000, token: now + 1_000, device: now + 1_000 });
  });

  it('opens another batch when one is full, and writes both', async () => {
    const seen = await seenAnHourAgo();
    let batches = 0;
    const d1 = interceptedD1(env.DB, { batch: () => batches++ });
    const now = Date.now();
    const first = touchSession(d1, seen.sessionId, IDLE_MS, now, 100);
    // Devices that never activated anything fill the rest of the batch (their rows match nothing).
    for (let i = 1; i < TOUCH_BATCH_MAX; i++) expect(noteDeviceSeen(d1, `unknown-${i}`, now, 100)).toBeNull();
    const second = noteDeviceSeen(d1, seen.activationId, now + 1, 100);
    expect(second).not.toBeNull();
    await Promise.all([first, second]);
    expect(batches).toBe(2);
    expect(await times(seen)).toMatchObject({ session: now, device: now + 1 });
  });
});
