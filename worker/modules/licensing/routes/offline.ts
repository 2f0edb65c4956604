// /api/users/my-keys/offline-*: air-gapped activation. The key's holder, signed in on a connected
// machine (My Keys, or the CLI with their API token), uploads the request an offline device wrote and
// gets back a signed response file to carry to it; and brings back the device's deactivation proof.
import { Hono, type Context } from 'hono';
import type { AppEnv, SignedInEnv } from '../../../platform/context';
import { jsonBody } from '../../../platform/validate';
import { routeOperations } from '../../accounts';
import { getSettings } from '../../settings';
import { licenseAnswer } from '../answer';
import type { LicenseResult } from '../licensing';
import { activateOffline, deactivateOffline } from '../offline';
import {
  OFFLINE_RECEIPT_TYPE,
  OFFLINE_RESPONSE_TYPE,
  offlineProofSchema,
  offlineReceiptFileSchema,
  offlineRequestSchema,
  offlineResponseFileSchema,
} from '../schemas';

const op = routeOperations({ tag: 'Account', access: 'user' });

/** The licensing answer, signed as the licensing API signs its answers, as a file: its JSON text and the signature. */
async function signedFile<T extends string>(
  c: Context<SignedInEnv>,
  type: T,
  result: LicenseResult,
  input: { deviceFingerprint: string; nonce: string },
  now: number,
  extra: Record<string, string | null> = {},
) {
  const res = await licenseAnswer(c as unknown as Context<AppEnv>, result, input, now, extra);
  return { type, answer: await res.text(), signature: res.headers.get('X-Signature') ?? '' };
}

export const myOfflineRoutes = new Hono<SignedInEnv>()
  .post(
    '/my-keys/offline-activations',
    op(
      'activateMyKeyOffline',
      "Turn an air-gapped device's activation request (written by the SDK) into a signed response file for it",
      { 200: offlineResponseFileSchema },
      { errors: [400, 404, 409] },
    ),
    jsonBody(offlineRequestSchema),
    async (c) => {
      const request = c.req.valid('json');
      const now = Date.now();
      const result = await activateOffline(c.var.db, await getSettings(c.env.KV), c.var.caller.id, request, now);
      const tokenExpiresAt = result.valid && result.tokenExpiresAt ? new Date(result.tokenExpiresAt).toISOString() : null;
      const file = await signedFile(c, OFFLINE_RESPONSE_TYPE, result, request, now, {
        deviceFingerprint: request.deviceFingerprint,
        deviceKey: request.deviceKey,
        tokenExpiresAt,
      });
      return c.json(file, 200);
    },
  )
  .post(
    '/my-keys/offline-deactivations',
    op(
      'deactivateMyKeyOffline',
      "Bring back an air-gapped device's signed deactivation proof: it frees the device's slot, once",
      { 200: offlineReceiptFileSchema },
      { errors: [400, 404] },
    ),
    jsonBody(offlineProofSchema),
    async (c) => {
      const now = Date.now();
      const { result, deviceFingerprint, nonce } = await deactivateOffline(c.var.db, c.var.caller.id, c.req.valid('json'), now);
      return c.json(await signedFile(c, OFFLINE_RECEIPT_TYPE, result, { deviceFingerprint, nonce }, now), 200);
    },
  );
