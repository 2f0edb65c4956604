// Issue 35, point 1: text people type refuses control characters and bidirectional controls (one
// rule, worker/platform/schemas/text.ts); text licensed software sends (deviceInfo) is cleaned of them
// before it is stored (issue 42, point 5).
import { describe, expect, it } from 'vitest';
import { refuseUnsafeText, unsafeCharacter, visibleText } from '../schemas/text';
import { api, db, signedInUser, TEST_PASSWORD, uniqueName } from '../../test/helpers';
import { eq } from 'drizzle-orm';
import { activations } from '../db/schema';
import { activationsOf, asActor, generated } from '../../test/key-admin-helpers';
import { makeProduct, uniqueTag } from '../../test/shop-helpers';
import { z } from 'zod';

/** What the attacker's report used: ESC (a colour), OSC 8 (a hidden link), BEL, NUL, a lone CR, DEL, a C1 CSI and U+202E. */
const UNSAFE: Array<[string, string]> = [
  ['ESC', '\u001b[41mRED\u001b[0m'],
  ['OSC 8', '\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007'],
  ['BEL', 'ding\u0007'],
  ['NUL', 'cut\u0000here'],
  ['CR', 'over\rwrite'],
  ['DEL', 'x\u007f'],
  ['C1 CSI', 'x\u009b31m'],
  ['RLO', 'report\u202Efdp.exe'],
  ['LRI', 'a\u2066b'],
  ['LINE SEPARATOR', 'a\u2028b'],
];

describe('the unsafe text rule', () => {
  it.each(UNSAFE)('refuses %s', (_, text) => {
    expect(unsafeCharacter(text)).not.toBe(null);
    expect(unsafeCharacter(text, { lineBreaks: true })).not.toBe(null);
  });

  it('keeps ordinary text, accents, emoji and right-to-left scripts; line breaks only where asked', () => {
    for (const text of ['Photo Pro 2026', 'Café — 東京', 'שלום עולם', 'مرحبا', '🚀 launch', 'a "quoted", b;c']) {
      expect(unsafeCharacter(text)).toBe(null);
    }
    expect(unsafeCharacter('one\ntwo')).toBe('\n');
    expect(unsafeCharacter('one\ntwo\r\nthree', { lineBreaks: true })).toBe(null);
    expect(unsafeCharacter('tab\there', { lineBreaks: true })).toBe('\t');
  });

  it('gives one message, naming the character as an escape', () => {
    const schema = z.string().superRefine(refuseUnsafeText('Name'));
    expect(schema.safeParse('x\u202Ey').error?.issues[0].message).toBe(
      'Name must not contain control characters or bidirectional text controls (found \\u202e)',
    );
  });

  it('shows unsafe text visibly escaped', () => {
    expect(visibleText('\u001b[41mRED\u0007\u0000\u202Eend')).toBe('\\x1b[41mRED\\x07\\x00\\u202eend');
    expect(visibleText('a\nb')).toBe('a\\x0ab');
    expect(visibleText('a\nb', { lineBreaks: true })).toBe('a\nb');
  });
});

const product = (over: Record<string, unknown>) => ({
  name: 'Plain name',
  description: 'Plain description',
  keyTag: uniqueTag(),
  baseCreditCost: 1,
  creditsPerDay: 1,
  ...over,
});

describe('text people type', () => {
  it.each(UNSAFE)('a product whose name, description or features hold %s is refused with 400', async (_, text) => {
    const owner = await signedInUser('owner');
    for (const [field, value] of [
      ['name', `Widget ${text}`],
      ['description', `About ${text}`],
      ['features', ['Export', `Layer ${text}`]],
      ['features', `Export, Layer ${text}`],
    ] as const) {
      const res = await api('POST', '/api/products', { token: owner.token, body: product({ [field]: value }) });
      expect(res.status, `${field}: ${JSON.stringify(value)}`).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.message).toMatch(/must not contain control characters or bidirectional text controls \(found \\(x|u)[0-9a-f]+\)$/);
    }
    const created = await makeProduct();
    const update = await api('PUT', `/api/products/${created.id}`, { token: owner.token, body: product({ name: `Renamed ${text}` }) });
    expect(update.status).toBe(400);
  });

  it('keeps line breaks in a description, and the text exactly', async () => {
    const owner = await signedInUser('owner');
    const res = await api('POST', '/api/products', {
      token: owner.token,
      body: product({ name: 'Café — שלום', description: 'Line one\nLine two\r\nLine three', features: ['東京', 'Export'] }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ name: 'Café — שלום', description: 'Line one\nLine two\r\nLine three', features: ['東京', 'Export'] });
  });

  it('refuses a username, a webhook description, a revoke or delete reason and an API token name with control or bidi characters', async () => {
    const owner = await signedInUser('owner');
    const register = await api('POST', '/api/auth/register', {
      body: { username: `ab\u202Ecd`, email: `${uniqueName('rlo')}@example.com`, password: 'Quiet-Harbor-Lamp-7' },
    });
    expect(register.status).toBe(400);
    expect(register.body.message).toBe('Username must not contain control characters or bidirectional text controls (found \\u202e)');

    const created = await api('POST', '/api/admin/users', {
      token: owner.token,
      body: { username: `ab\u001bcd`, email: `${uniqueName('esc')}@example.com`, password: 'Quiet-Harbor-Lamp-7' },
    });
    expect(created.status).toBe(400);

    const hook = await api('POST', '/api/webhooks', {
      token: owner.token,
      body: { url: 'https://example.com/hook', events: ['key.revoked'], description: 'Shop \u001b]8;;https://evil\u0007' },
    });
    expect(hook.status).toBe(400);
    expect(hook.body.message).toBe('Description must not contain control characters or bidirectional text controls (found \\x1b)');

    const p = await makeProduct();
    const [key] = await generated(asActor(owner.user), p.id, 1);
    const revoke = await api('PUT', `/api/keys/${key._id}/revoke`, { token: owner.token, body: { reason: 'Refund\u0007ed' } });
    expect(revoke.status).toBe(400);
    expect(revoke.body.message).toBe('The reason must not contain control characters or bidirectional text controls (found \\x07)');
    const bulk = await api('DELETE', '/api/admin/keys/bulk', { token: owner.token, body: { keyIds: [key._id], reason: 'gone\u202E' } });
    expect(bulk.status).toBe(400);
    // A reason over two lines is fine.
    const ok = await api('PUT', `/api/keys/${key._id}/revoke`, { token: owner.token, body: { reason: 'Refunded\nTicket 42' } });
    expect(ok.status).toBe(200);
    expect(ok.body.licenseKey.revokeReason).toBe('Refunded\nTicket 42');

    const token = await api('POST', '/api/users/api-tokens', {
      token: owner.token,
      body: { name: 'nightly\u202Etxt', role: 'owner', currentPassword: TEST_PASSWORD },
    });
    expect(token.status).toBe(400);
    expect(token.body.message).toBe('Name must not contain control characters or bidirectional text controls (found \\u202e)');
  });
});

describe('text licensed software sends (issue 42, point 5)', () => {
  it('cleans deviceInfo of control and bidi characters (C0, DEL, C1, U+202E) before it is stored', async () => {
    const owner = await signedInUser('owner');
    const p = await makeProduct();
    const [key] = await generated(asActor(owner.user), p.id, 1);
    const deviceInfo = {
      manufacturer: 'Acme\u0000\u001b[41m',
      model: 'X1\u202Eevil\u009b31m',
      device: 'bell\u0007 del\u007f',
      cpuAbi: 'arm64\r\n',
      fingerprint: 'ls\u2028x',
    };
    const res = await api('POST', '/api/v1/licenses/activate', {
      body: { key: key.key, deviceFingerprint: `fp-${uniqueName()}`, deviceInfo },
    });
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(true);
    const [activation] = await activationsOf(key._id);
    expect(activation.deviceInfo).toEqual({
      manufacturer: 'Acme[41m',
      model: 'X1evil31m',
      device: 'bell del',
      cpuAbi: 'arm64',
      fingerprint: 'lsx',
    });
    for (const value of Object.values(activation.deviceInfo ?? {})) expect(unsafeCharacter(String(value))).toBeNull();
  });

  it('cleans the deviceInfo of a trial too', async () => {
    const p = await makeProduct({ trialDays: 7 });
    const fingerprint = `fp-${uniqueName()}`;
    const trial = await api('POST', '/api/v1/licenses/trial', {
      body: { keyTag: p.keyTag, deviceFingerprint: fingerprint, deviceInfo: { model: `M\u001b[2J${'\u0007'.repeat(30)}` } },
    });
    expect(trial.status).toBe(200);
    expect(trial.body.code).toBe('TRIAL_STARTED');
    const stored = await db()
      .select({ deviceInfo: activations.deviceInfo })
      .from(activations)
      .where(eq(activations.deviceFingerprint, fingerprint))
      .all();
    expect(stored.map((s) => s.deviceInfo)).toEqual([{ model: 'M[2J' }]);
  });

  it('refuses a key holding a control or bidi character as a bad request, before any lookup', async () => {
    for (const [name, text] of UNSAFE) {
      const res = await api('POST', '/api/v1/licenses/validate', { body: { key: `KEY-${text}`, deviceFingerprint: `fp-${uniqueName()}` } });
      expect(res.status, name).toBe(400);
      expect(res.body.message).toMatch(/^key must not contain control characters or bidirectional text controls/);
    }
  });
});
