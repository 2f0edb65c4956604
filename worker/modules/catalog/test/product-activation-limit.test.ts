// maxActivationsPerKey (settings) bounds every product's maxActivations.
import { describe, expect, it } from 'vitest';
import { activationLimitMessage } from '../../settings/limits';
import { sandbox } from '../../../test/sandbox';

const product = (keyTag: string, maxActivations: number) => ({
  name: `Limited ${keyTag}`,
  description: 'Bound by the settings',
  keyTag,
  baseCreditCost: 10,
  creditsPerDay: 1,
  maxActivations,
});

describe('maxActivationsPerKey', () => {
  it('refuses products above the bound, on create and on edit, and changes nothing', async () => {
    const box = await sandbox({ settings: { maxActivationsPerKey: 2 } });
    const { token } = await box.signedInUser('owner');
    const tag = `AL${Date.now().toString(36).toUpperCase().slice(-6)}`;

    const tooMany = await box.api('POST', '/api/products', { token, body: product(tag, 3) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ code: 'VALIDATION_ERROR', message: activationLimitMessage(2) });
    expect((await box.api('GET', '/api/products', { token })).body.some((p: { keyTag: string }) => p.keyTag === tag)).toBe(false);

    const ok = await box.api('POST', '/api/products', { token, body: product(tag, 2) });
    expect(ok.status).toBe(201);
    const edit = await box.api('PUT', `/api/products/${ok.body._id}`, { token, body: product(tag, 5) });
    expect(edit.status).toBe(400);
    expect(edit.body.message).toBe(activationLimitMessage(2));
    const stored = (await box.api('GET', '/api/products', { token })).body.find((p: { _id: string }) => p._id === ok.body._id);
    expect(stored!.maxActivations).toBe(2);
  });

  it('allows one device per key by default', async () => {
    const box = await sandbox();
    const { token } = await box.signedInUser('owner');
    const tag = `AD${Date.now().toString(36).toUpperCase().slice(-6)}`;
    expect((await box.api('POST', '/api/products', { token, body: product(tag, 2) })).status).toBe(400);
    expect((await box.api('POST', '/api/products', { token, body: product(tag, 1) })).status).toBe(201);
  });
});
