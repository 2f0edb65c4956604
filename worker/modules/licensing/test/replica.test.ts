// A validation signs a fresh offline token, so it must read the key as it is (issue 42): a key
// revoked on the primary must not get a token from a replica that has not seen the revocation yet.
// REPLICA_DB stands in for such a replica: it holds the key as it was before the revocation, and the
// Worker's D1 sends any session that does not start on the primary there.
import { applyD1Migrations, env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, freshIp } from '../../../test/helpers';
import { makeProduct, usedKey } from '../../../test/shop-helpers';
import { sandbox } from '../../../test/sandbox';
import { passThrough } from '../../../platform/proxy';
import { validateLicense } from '../licensing';
import { DEFAULT_SETTINGS } from '../../settings/schemas';

/** The primary, whose sessions that may start on a replica start on the lagging one instead. */
const withLaggingReplica = (primary: D1Database): D1Database =>
  new Proxy(primary, {
    get(target, prop) {
      if (prop === 'withSession')
        return (arg?: string) => (arg === 'first-primary' ? target.withSession(arg) : env.REPLICA_DB.withSession(arg));
      return passThrough(target, prop);
    },
  });

/** A row of the primary, copied to the replica as it is now. */
async function replicate(table: string, id: string) {
  const row = await env.DB.prepare(`SELECT * FROM ${table} WHERE id = ?1`).bind(id).first<Record<string, unknown>>();
  const columns = Object.keys(row!);
  await env.REPLICA_DB.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_, i) => `?${i + 1}`).join(', ')})`)
    .bind(...Object.values(row!))
    .run();
}

beforeAll(async () => {
  await applyD1Migrations(env.REPLICA_DB, env.TEST_MIGRATIONS);
});

describe('a validation reads the primary', () => {
  it('a key revoked on the primary gets no offline token, though a lagging replica still holds it valid', async () => {
    const product = await makeProduct({ offlineTokenHours: 24 });
    const { id, key } = await usedKey(product);
    const device = 'replica-device';
    const activated = await api('POST', '/api/v1/licenses/activate', { body: { key, deviceFingerprint: device }, ip: freshIp() });
    expect(activated.body.valid).toBe(true);
    expect(activated.body.license?.token).toEqual(expect.any(String));
    await replicate('products', product.id);
    await replicate('license_keys', id);
    const activation = await env.DB.prepare('SELECT id FROM activations WHERE key_id = ?1').bind(id).first<{ id: string }>();
    await replicate('activations', activation!.id);

    await env.DB.prepare(`UPDATE license_keys SET status = 'revoked', revoked_at = ?2, revoke_reason = 'test' WHERE id = ?1`)
      .bind(id, Date.now())
      .run();
    // The replica has not seen it: read there, the key is valid and a token would be signed.
    const stale = await validateLicense(env.REPLICA_DB, DEFAULT_SETTINGS, { key, deviceFingerprint: device });
    expect(stale).toMatchObject({ valid: true, tokenExpiresAt: expect.any(Number) as unknown });

    const box = await sandbox({ wrapD1: withLaggingReplica });
    const res = await box.api('POST', '/api/v1/licenses/validate', { body: { key, deviceFingerprint: device }, ip: freshIp() });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: false, code: 'REVOKED' });
    expect(res.body.license?.token ?? null).toBeNull();
  });
});
