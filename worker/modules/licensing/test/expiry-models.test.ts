// Licence models (issue 43): how a product's keys end. Perpetual keys have no expiry, whether bought
// or generated and activated, and the cron never expires them; perpetual-fallback keys expire, but a
// release dated before the expiry keeps validating (UPDATES_ENDED), and the model is in the signed
// answer and the offline token.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { licenseKeys } from '../../../platform/db/schema';
import { DAY_MS } from '../../../platform/vocabulary';
import { api, db, signedInUser } from '../../../test/helpers';
import { makeProduct, uniqueTag } from '../../../test/shop-helpers';
import { DEFAULT_SETTINGS } from '../../settings/schemas';
import { cleanupExpiredKeys, expireKeys } from '../../keys/key-lifecycle';

const keyRow = (id: string) => db().select().from(licenseKeys).where(eq(licenseKeys.id, id)).get();
const validate = (body: Record<string, unknown>) => api('POST', '/api/v1/licenses/validate', { body });
const claimsOf = (token: string) => JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;

async function boughtKey(expiryModel: string, days = 30) {
  const product = await makeProduct({ expiryModel, baseCreditCost: 50, creditsPerDay: 1 });
  const { token } = await signedInUser('user', { credits: 1_000 });
  const res = await api('POST', '/api/keys/purchase', { token, body: { productId: product.id, duration: days } });
  expect(res.status).toBe(201);
  return { product, token, receipt: res.body.licenseKey };
}

describe('perpetual keys', () => {
  it('are bought with no expiry, validate with none, are never expired by the cron and cannot be renewed', async () => {
    const { product, token, receipt } = await boughtKey('perpetual');
    expect(product.expiryModel).toBe('perpetual');
    expect(receipt.expiryDate).toBeNull();
    const row = (await keyRow(receipt._id))!;
    expect(row).toMatchObject({ expiryModel: 'perpetual', expiresAt: null, status: 'used' });
    const fp = `device-${uniqueTag()}`;
    const activated = await api('POST', '/api/v1/licenses/activate', { body: { key: receipt.key, deviceFingerprint: fp } });
    expect(activated.body).toMatchObject({ valid: true, code: 'VALID', license: { expiresAt: null, expiryModel: 'perpetual' } });
    expect(claimsOf(activated.body.license!.token!)).toMatchObject({ model: 'perpetual' });
    expect(claimsOf(activated.body.license!.token!).lexp).toBeUndefined();
    // Ten years on, the cron has nothing to expire and nothing to delete.
    const later = Date.now() + 3650 * DAY_MS;
    await expireKeys(db(), DEFAULT_SETTINGS, later);
    await cleanupExpiredKeys(db(), { ...DEFAULT_SETTINGS, autoCleanupExpiredKeys: true }, later);
    expect((await keyRow(receipt._id))!.status).toBe('used');
    const renewal = await api('POST', `/api/users/my-keys/${receipt._id}/renew`, { token, body: { days: 10 } });
    expect(renewal).toMatchObject({ status: 409, body: { code: 'KEY_NOT_RENEWABLE' } });
  });

  it('start no clock when generated and first activated', async () => {
    const product = await makeProduct({ expiryModel: 'perpetual' });
    const owner = await signedInUser('owner');
    const gen = await api('POST', '/api/keys/generate', { token: owner.token, body: { productId: product.id, quantity: 1 } });
    expect(gen.body.keys[0]).toMatchObject({ expiryModel: 'perpetual', expiresAt: null });
    const key = gen.body.keys[0].key;
    const activated = await api('POST', '/api/v1/licenses/activate', { body: { key, deviceFingerprint: `device-${uniqueTag()}` } });
    expect(activated.body).toMatchObject({ valid: true, license: { status: 'used', expiresAt: null } });
    expect((await keyRow(gen.body.keys[0]._id))!).toMatchObject({ status: 'used', expiresAt: null });
  });
});

describe('perpetual-fallback keys', () => {
  it('validate for a release dated before the expiry (UPDATES_ENDED), not for one after, and not without a date', async () => {
    const { receipt } = await boughtKey('perpetual-fallback');
    const fp = `device-${uniqueTag()}`;
    expect((await api('POST', '/api/v1/licenses/activate', { body: { key: receipt.key, deviceFingerprint: fp } })).body.code).toBe('VALID');
    // Live: every release validates as usual.
    const live = await validate({ key: receipt.key, deviceFingerprint: fp, releaseDate: '2099-01-01' });
    expect(live.body).toMatchObject({ valid: true, code: 'VALID', license: { expiryModel: 'perpetual-fallback' } });
    // The key expired ten days ago, and the cron marked it.
    const expiry = Date.now() - 10 * DAY_MS;
    await db()
      .update(licenseKeys)
      .set({ expiresAt: new Date(expiry) })
      .where(eq(licenseKeys.id, receipt._id));
    await expireKeys(db(), DEFAULT_SETTINGS, Date.now());
    expect((await keyRow(receipt._id))!.status).toBe('expired');

    const older = await validate({
      key: receipt.key,
      deviceFingerprint: fp,
      releaseDate: new Date(expiry - DAY_MS).toISOString().slice(0, 10),
    });
    expect(older.status).toBe(200);
    expect(older.headers.get('x-signature')).toBeTruthy();
    expect(older.body).toMatchObject({
      valid: true,
      code: 'UPDATES_ENDED',
      license: { status: 'expired', expiresAt: new Date(expiry).toISOString(), expiryModel: 'perpetual-fallback' },
    });
    // Its offline token lives its product's lifetime (not cut at the past expiry) and says the model and the expiry.
    const claims = claimsOf(older.body.license!.token!);
    expect(claims).toMatchObject({ model: 'perpetual-fallback', lexp: Math.floor(expiry / 1000) });
    expect(claims.exp as number).toBeGreaterThan(Date.now() / 1000 + 23 * 3600);

    const newer = await validate({ key: receipt.key, deviceFingerprint: fp, releaseDate: new Date(expiry + DAY_MS).toISOString() });
    expect(newer.body).toMatchObject({ valid: false, code: 'EXPIRED', license: { token: null } });
    expect(newer.body.detail).toContain('releases dated before then keep working');
    // At the expiry itself is not before it.
    const same = await validate({ key: receipt.key, deviceFingerprint: fp, releaseDate: new Date(expiry).toISOString() });
    expect(same.body.code).toBe('EXPIRED');
    expect((await validate({ key: receipt.key, deviceFingerprint: fp })).body.code).toBe('EXPIRED');
    // Another device, never activated, gets nothing from an old release either.
    const stranger = await validate({ key: receipt.key, deviceFingerprint: `other-${uniqueTag()}`, releaseDate: '2000-01-01' });
    expect(stranger.body).toMatchObject({ valid: false, code: 'NOT_ACTIVATED' });
    // Kept by the cleanup: its older releases live on.
    await cleanupExpiredKeys(db(), { ...DEFAULT_SETTINGS, autoCleanupExpiredKeys: true }, Date.now() + 365 * DAY_MS);
    expect(await keyRow(receipt._id)).toBeTruthy();
  });

  it('refuses a revoked key whatever the release, and a time-limited key ignores releaseDate', async () => {
    const { receipt } = await boughtKey('perpetual-fallback');
    const fp = `device-${uniqueTag()}`;
    await api('POST', '/api/v1/licenses/activate', { body: { key: receipt.key, deviceFingerprint: fp } });
    await db()
      .update(licenseKeys)
      .set({ status: 'revoked', expiresAt: new Date(Date.now() - DAY_MS) })
      .where(eq(licenseKeys.id, receipt._id));
    expect((await validate({ key: receipt.key, deviceFingerprint: fp, releaseDate: '2000-01-01' })).body.code).toBe('REVOKED');

    const limited = await boughtKey('time-limited');
    await api('POST', '/api/v1/licenses/activate', { body: { key: limited.receipt.key, deviceFingerprint: fp } });
    await db()
      .update(licenseKeys)
      .set({ expiresAt: new Date(Date.now() - DAY_MS) })
      .where(eq(licenseKeys.id, limited.receipt._id));
    const res = await validate({ key: limited.receipt.key, deviceFingerprint: fp, releaseDate: '2000-01-01' });
    expect(res.body).toMatchObject({ valid: false, code: 'EXPIRED' });
  });

  it('turns a malformed releaseDate away with a 400', async () => {
    const res = await validate({ key: 'ABC-1', deviceFingerprint: 'device-1', releaseDate: 'last tuesday' });
    expect(res).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR' } });
  });
});

describe('the product form', () => {
  it('stores the licence model and refuses an unknown one', async () => {
    const owner = await signedInUser('owner');
    const body = { name: `P ${uniqueTag()}`, description: 'd', keyTag: uniqueTag(), baseCreditCost: 1, expiryModel: 'perpetual-fallback' };
    const made = await api('POST', '/api/products', { token: owner.token, body });
    expect(made.status).toBe(201);
    expect(made.body.expiryModel).toBe('perpetual-fallback');
    const bad = await api('POST', '/api/products', { token: owner.token, body: { ...body, keyTag: uniqueTag(), expiryModel: 'forever' } });
    expect(bad).toMatchObject({ status: 400, body: { code: 'VALIDATION_ERROR' } });
  });
});
