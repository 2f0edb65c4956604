// Point 3 of issue 35, against the real local server (wrangler dev, as `npm start` runs it): the bug
// only shows there. An oversized body sent chunked (no Content-Length) is refused, and the next
// request, someone else's, is answered as usual: a signed 200, not the dev proxy's 503.
import { describe, expect, it } from 'vitest';
import { baseURL } from './helpers';

/** A body sent in 8 KB chunks with no Content-Length (Transfer-Encoding: chunked). */
function chunked(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (let offset = 0; offset < bytes.length; offset += 8192) controller.enqueue(bytes.subarray(offset, offset + 8192));
      controller.close();
    },
  });
}

async function verifiesWithLicensingKey(text: string, signature: string | null): Promise<boolean> {
  if (!signature) return false;
  const res = await fetch(new URL('/api/v1/licenses/public-key', baseURL()));
  const { jwk } = (await res.json()) as { jwk: { x: string } };
  const key = await crypto.subtle.importKey('jwk', { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, { name: 'Ed25519' }, false, ['verify']);
  return crypto.subtle.verify('Ed25519', key, Buffer.from(signature, 'base64'), new TextEncoder().encode(text));
}

describe('a body over the limit', () => {
  it.each([80 * 1024, 3 * 1024 * 1024])('of %i bytes, chunked, is refused and the next request is served', async (size) => {
    for (let round = 0; round < 4; round++) {
      const body = new TextEncoder().encode(JSON.stringify({ email: 'someone@cli.test', password: 'x'.repeat(size) }));
      const signIn = await fetch(new URL('/api/auth/login', baseURL()), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: chunked(body),
        duplex: 'half',
      });
      expect(signIn.status).toBe(413);
      expect(await signIn.json()).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'Request body must be at most 64 KB' });

      const validate = await fetch(new URL('/api/v1/licenses/validate', baseURL()), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: 'NOPE-0000-0000', deviceFingerprint: 'body-limit-device', nonce: `n${round}` }),
      });
      const text = await validate.text();
      expect(validate.status).toBe(200);
      expect(JSON.parse(text)).toMatchObject({ valid: false, code: 'NOT_FOUND', nonce: `n${round}` });
      expect(await verifiesWithLicensingKey(text, validate.headers.get('x-signature'))).toBe(true);
    }
  });

  it('is refused unread when its Content-Length says so, and the next request is served', async () => {
    const signIn = await fetch(new URL('/api/auth/login', baseURL()), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'someone@cli.test', password: 'x'.repeat(80 * 1024) }),
    });
    expect(signIn.status).toBe(413);
    const validate = await fetch(new URL('/api/v1/licenses/validate', baseURL()), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'NOPE-0000-0000', deviceFingerprint: 'body-limit-device' }),
    });
    expect(validate.status).toBe(200);
  });
});
