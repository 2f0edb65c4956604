// /api/users/my-keys: the customer's own license keys, paged and searched; a key's history; giving
// one to another account and replacing a leaked value; renewing one and its auto-renewal; /api/users/key-transfers: the keys they gave and received.
import { Hono } from 'hono';
import type { SignedInEnv } from '../../../platform/context';
import { inBackground, jsonText } from '../../../platform/request';
import { jsonBody, pathParams, queryParams } from '../../../platform/validate';
import { listOwnKeys } from '../my-keys';
import { myKeysQuerySchema } from '../schemas/keys';
import { routeOperations } from '../../accounts';
import { getSettings } from '../../settings';
import { keyAdmin } from '../admin-keys';
import { listKeyTransfers, regenerateKey, transferKey, transferredMessage } from '../key-care';
import { keyIdParam } from '../schemas/admin-keys';
import { keyHistory } from '../key-history';
import { keyHistoryQuery, keyHistoryResponseSchema } from '../schemas/key-history';
import { keyTransfersQuery, regenerateKeySchema, transferKeySchema } from '../schemas/key-care';
import { idempotencyClaim } from '../../../platform/idempotency';
import { renewOwnKey, setAutoRenew } from '../own-renewal';
import { RENEWAL_STATUS } from '../renewal';
import { autoRenewResponseSchema, autoRenewSchema, renewalResponseSchema, renewKeySchema } from '../schemas/renewal';
import {
  type KeyChangeResponse,
  keyChangeResponseSchema,
  keyTransferredResponseSchema,
  keyTransfersResponseSchema,
  myKeysResponseSchema,
} from '../schemas/answers';

const op = routeOperations({ tag: 'Account', access: 'user' });

export const myKeysRoutes = new Hono<SignedInEnv>()
  .get(
    '/my-keys',
    op('listMyKeys', 'My license keys, paged', { 200: myKeysResponseSchema }, { errors: [400] }),
    queryParams(myKeysQuerySchema),
    async (c) => jsonText(c, await listOwnKeys(c.var.db, c.var.caller.id, c.req.valid('query'))),
  )
  .get(
    '/my-keys/:id/history',
    op(
      'myKeyHistory',
      "My key's history, newest first: purchase, activations, device removals and swaps, transfers, regenerations, revocation, the days a device validated",
      { 200: keyHistoryResponseSchema },
      { errors: [400, 404] },
    ),
    pathParams(keyIdParam),
    queryParams(keyHistoryQuery),
    async (c) => c.json(await keyHistory(keyAdmin(c), c.req.valid('param').id, 'holder', c.req.valid('query')), 200),
  )
  .post(
    '/my-keys/:id/regenerate',
    op(
      'regenerateMyKey',
      "Replace my key's value: the old one stops validating at once (KEY_REGENERATED)",
      { 200: keyChangeResponseSchema },
      { errors: [400, 404, 409] },
    ),
    pathParams(keyIdParam),
    jsonBody(regenerateKeySchema),
    async (c) => {
      const licenseKey = await regenerateKey(keyAdmin(c), c.req.valid('param').id, c.req.valid('json'), 'holder');
      const body: KeyChangeResponse = { success: true, message: 'License key regenerated: use the new key from now on', licenseKey };
      return c.json(body, 200);
    },
  )
  .post(
    '/my-keys/:id/transfer',
    op(
      'transferMyKey',
      'Give my key, its devices and its remaining time to another account (step-up required)',
      { 200: keyTransferredResponseSchema },
      { proof: 'always', errors: [400, 403, 404, 409] },
    ),
    pathParams(keyIdParam),
    jsonBody(transferKeySchema),
    async (c) => {
      const moved = await transferKey(keyAdmin(c), c.req.valid('param').id, c.req.valid('json'), 'holder', {
        settings: await getSettings(c.env.KV),
        env: c.env,
        later: (work) => inBackground(c, work),
      });
      return c.json(
        {
          success: true as const,
          message: transferredMessage(moved),
          ...moved,
        },
        200,
      );
    },
  )
  .post(
    '/my-keys/:id/renew',
    op(
      'renewMyKey',
      'Renew my key with my credits: the same key runs for more days (from its expiry while live, from now once expired)',
      { 200: { description: 'Renewed (or replayed, with Idempotent-Replayed: true)', schema: renewalResponseSchema } },
      { errors: [400, 402, 404, 409], idempotent: true },
    ),
    pathParams(keyIdParam),
    jsonBody(renewKeySchema),
    async (c) => {
      const id = c.req.valid('param').id;
      const { days } = c.req.valid('json');
      const me = c.var.caller.id;
      const claim = idempotencyClaim('renew', me, c.req.header('idempotency-key'), `${id}:${days}`);
      const mail = (await getSettings(c.env.KV)).emailNotificationsEnabled;
      const { replayed, ...body } = await renewOwnKey(c.var.db, me, id, days, claim, mail);
      if (replayed) c.header('Idempotent-Replayed', 'true');
      return c.json(body, RENEWAL_STATUS);
    },
  )
  .put(
    '/my-keys/:id/auto-renew',
    op(
      'setMyKeyAutoRenew',
      "Switch my key's auto-renewal from my credits on (the days each renewal adds) or off",
      { 200: autoRenewResponseSchema },
      { errors: [400, 403, 404, 409] },
    ),
    pathParams(keyIdParam),
    jsonBody(autoRenewSchema),
    async (c) =>
      c.json(
        await setAutoRenew(c.var.db, await getSettings(c.env.KV), c.var.caller.id, c.req.valid('param').id, c.req.valid('json').days),
        200,
      ),
  )
  .get(
    '/key-transfers',
    op(
      'listMyKeyTransfers',
      'The keys I gave to and received from other accounts, newest first',
      { 200: keyTransfersResponseSchema },
      { errors: [400] },
    ),
    queryParams(keyTransfersQuery),
    async (c) => c.json(await listKeyTransfers(c.var.db, c.var.caller.id, c.req.valid('query')), 200),
  );
