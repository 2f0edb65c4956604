// /api/v1/licenses: the licensing API for licensed software: public, no session, limited per key and,
// for unknown keys, per address (decided before the lookup), every answer signed over its exact bytes
// (modules/licensing/signature.ts).
import { Hono } from 'hono';
import type { AppEnv } from '../../../platform/context';
import { activateLicense, deactivateLicense, validateLicense } from '../licensing';
import { licenseAnswer, prepareLicenseCall, prepareTrialCall } from '../answer';
import { borrowSeat, heartbeatLicense } from '../seats';
import { replaceDevice } from '../swaps';
import { startTrial } from '../trials';
import { consumeUsage } from '../usage';
import { idempotencyKeySchema } from '../../../platform/idempotency';
import { AppError } from '../../../platform/errors';
import { signingKeys } from '../../../platform/signing';
import { inBackground } from '../../../platform/request';
import { jsonBody } from '../../../platform/validate';
import {
  activateLicenseSchema,
  borrowSeatSchema,
  consumeLicenseSchema,
  deactivateLicenseSchema,
  heartbeatLicenseSchema,
  replaceDeviceSchema,
  startTrialSchema,
  validateLicenseSchema,
  licenseAnswerSchema,
  licensingPublicKeySchema,
} from '../schemas';
import { routeOperations } from '../../accounts';
import { getSettings } from '../../settings';

const op = routeOperations({ tag: 'Licensing', access: 'public' });
const answer = (description = 'The answer, valid or not (see code)') => ({ 200: { description, schema: licenseAnswerSchema } });

export const licensesRoutes = new Hono<AppEnv>()
  .get(
    '/public-key',
    op(
      'getLicensingPublicKey',
      'The public key that signs answers and offline tokens',
      { 200: licensingPublicKeySchema },
      { signed: true },
    ),
    async (c) => {
      const { publicJwk, pem } = await signingKeys(c.env);
      c.header('Cache-Control', 'public, max-age=3600');
      return c.json({ jwk: publicJwk, pem }, 200);
    },
  )
  .post(
    '/activate',
    op(
      'activateLicense',
      'Activate a license key on a device',
      { 200: { description: 'The answer, valid or not (see code)', schema: licenseAnswerSchema } },
      { errors: [400, 429], signed: true },
    ),
    jsonBody(activateLicenseSchema),
    async (c) => {
      const input = c.req.valid('json');
      const { now, guard } = await prepareLicenseCall(c, input.key);
      const result = await activateLicense(c.var.db.$client, await getSettings(c.env.KV), input, now, guard);
      return licenseAnswer(c, result, input, now);
    },
  )
  .post(
    '/validate',
    op(
      'validateLicense',
      'Check a license key on a device',
      { 200: { description: 'The answer, valid or not (see code)', schema: licenseAnswerSchema } },
      // It writes nothing, but its offline token must reflect the key as it is: read on the primary.
      { errors: [400, 429], signed: true, reads: true, primary: true },
    ),
    jsonBody(validateLicenseSchema),
    async (c) => {
      const input = c.req.valid('json');
      const { now, guard } = await prepareLicenseCall(c, input.key);
      // The device's lastUsed, when due, is written after the answer has gone.
      const result = await validateLicense(
        c.var.db.$client,
        await getSettings(c.env.KV),
        input,
        now,
        (work) => inBackground(c, work),
        guard,
      );
      return licenseAnswer(c, result, input, now);
    },
  )
  .post(
    '/deactivate',
    op(
      'deactivateLicense',
      'Remove a device from a license key (a floating device checks its seat in)',
      { 200: { description: 'The answer (see code)', schema: licenseAnswerSchema } },
      { errors: [400, 429], signed: true },
    ),
    jsonBody(deactivateLicenseSchema),
    async (c) => {
      const input = c.req.valid('json');
      const { now, guard } = await prepareLicenseCall(c, input.key);
      return licenseAnswer(c, await deactivateLicense(c.var.db.$client, input, now, guard), input, now);
    },
  )
  .post(
    '/heartbeat',
    op('heartbeatLicense', "Renew a floating seat's lease (a node-locked device is only seen)", answer(), {
      errors: [400, 429],
      signed: true,
    }),
    jsonBody(heartbeatLicenseSchema),
    async (c) => {
      const input = c.req.valid('json');
      const { now, guard } = await prepareLicenseCall(c, input.key);
      return licenseAnswer(c, await heartbeatLicense(c.var.db.$client, await getSettings(c.env.KV), input, now, guard), input, now);
    },
  )
  .post(
    '/borrow',
    op('borrowSeat', 'Borrow a floating seat for offline use', answer(), { errors: [400, 429], signed: true }),
    jsonBody(borrowSeatSchema),
    async (c) => {
      const input = c.req.valid('json');
      const { now, guard } = await prepareLicenseCall(c, input.key);
      return licenseAnswer(c, await borrowSeat(c.var.db.$client, await getSettings(c.env.KV), input, now, guard), input, now);
    },
  )
  .post(
    '/replace-device',
    op('replaceDevice', "Replace one of a key's devices by this one, within the swap budget", answer(), {
      errors: [400, 429],
      signed: true,
    }),
    jsonBody(replaceDeviceSchema),
    async (c) => {
      const input = c.req.valid('json');
      const { now, guard } = await prepareLicenseCall(c, input.key);
      return licenseAnswer(c, await replaceDevice(c.var.db.$client, await getSettings(c.env.KV), input, now, guard), input, now);
    },
  )
  .post(
    '/consume',
    op(
      'consumeLicense',
      'Debit uses from a metered key (Idempotency-Key required: the same key debits once)',
      answer('CONSUMED with the uses left, USAGE_EXHAUSTED (nothing debited), or another code'),
      { errors: [400, 409, 429], signed: true, idempotent: true },
    ),
    jsonBody(consumeLicenseSchema),
    async (c) => {
      const input = c.req.valid('json');
      const header = idempotencyKeySchema.safeParse(c.req.header('idempotency-key') ?? '');
      if (!header.success) {
        const message =
          c.req.header('idempotency-key') === undefined ? 'Idempotency-Key header is required' : header.error.issues[0].message;
        throw new AppError('VALIDATION_ERROR', message, { details: { field: 'Idempotency-Key' } });
      }
      const { now, guard } = await prepareLicenseCall(c, input.key);
      const result = await consumeUsage(c.var.db.$client, await getSettings(c.env.KV), input, header.data, now, guard);
      if (result.replayed) c.header('Idempotent-Replayed', 'true');
      return licenseAnswer(c, result, input, now);
    },
  )
  .post(
    '/trial',
    op('startTrial', "Start a device's trial of a product", answer(), { errors: [400, 429], signed: true }),
    jsonBody(startTrialSchema),
    async (c) => {
      const input = c.req.valid('json');
      const { now, network } = await prepareTrialCall(c, input.deviceFingerprint);
      return licenseAnswer(c, await startTrial(c.var.db.$client, await getSettings(c.env.KV), input, now, network), input, now);
    },
  );
