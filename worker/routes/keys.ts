// /api/keys: a customer buys a key with their own credits.
import { Hono } from 'hono';
import type { SignedInEnv } from '../context';
import { idempotencyClaim } from '../domain/idempotency';
import { PURCHASE_STATUS, purchaseKey } from '../domain/purchase';
import { jsonBody } from '../lib/validate';
import { requireAuth } from '../middleware/auth';
import type { PurchaseResponse } from '../schemas/entities';
import { purchaseSchema } from '../schemas/keys';

export const keysRoutes = new Hono<SignedInEnv>().post('/purchase', requireAuth(), jsonBody(purchaseSchema), async (c) => {
  const { productId, duration } = c.req.valid('json');
  const me = c.var.caller.id;
  const result = await purchaseKey(c.var.db, {
    productId,
    days: duration,
    buyerId: me,
    payerId: me,
    actorId: me,
    generationMethod: 'purchase',
    idempotency: idempotencyClaim('purchase', me, c.req.header('idempotency-key'), `${productId}:${duration}`),
  });
  const body: PurchaseResponse = { licenseKey: result.licenseKey, remainingCredits: result.payerCredits ?? 0 };
  if (result.replayed) c.header('Idempotent-Replayed', 'true');
  return c.json(body, PURCHASE_STATUS);
});
