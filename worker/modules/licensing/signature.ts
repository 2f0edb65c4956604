// Every answer under the licensing API leaves signed (X-Signature over its exact bytes), so a
// licensed app can trust it offline; mounted on the app before the body limit.
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../../platform/context';
import { isSignedAnswer } from './answer';
import { signBytes } from '../../platform/signing';

export const LICENSES_PATH = '/api/v1/licenses';
const PUBLIC_KEY_PATH = `${LICENSES_PATH}/public-key`;

/**
 * Signs the exact bytes of every answer under the licensing API, errors included (the body limit's
 * 413, the validator's 400, a 429), and keeps them out of every cache. Mounted on the app before
 * the body limit, so that no answer leaves unsigned.
 */
export const signLicensingAnswers = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  // The public key is the same for everyone and may be cached; every other answer is one device's.
  const cacheable = c.req.path === PUBLIC_KEY_PATH && c.res.status === 200;
  if (isSignedAnswer(c.res)) return;
  const bytes = new Uint8Array(await c.res.arrayBuffer());
  const signed = new Response(bytes, c.res);
  signed.headers.set('X-Signature', await signBytes(c.env, bytes));
  if (!cacheable) signed.headers.set('Cache-Control', 'no-store');
  c.res = signed;
});
