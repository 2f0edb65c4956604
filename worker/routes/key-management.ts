// /api/keys (owner): revoking a key and generating keys. Mounted beside the customer's purchase
// route (routes/keys.ts), which shares the path.
import { Hono } from 'hono';
import type { SignedInEnv } from '../context';
import { revokeKey } from '../domain/admin-keys';
import { generateKeys } from '../domain/key-generation';
import { getSettings } from '../lib/settings';
import { jsonBody, pathParams } from '../lib/validate';
import { requireAuth } from '../middleware/auth';
import { generateKeysSchema, keyIdParam, revokeKeySchema } from '../schemas/admin-keys';
import type { GenerateKeysResponse, KeyChangeResponse } from '../schemas/entities';
import { keyAdmin } from './admin-keys';

export const keyManagementRoutes = new Hono<SignedInEnv>()
  .use(requireAuth())
  .put('/:id/revoke', requireAuth({ role: 'owner' }), pathParams(keyIdParam), jsonBody(revokeKeySchema), async (c) => {
    const body: KeyChangeResponse = {
      success: true,
      message: 'License key revoked',
      licenseKey: await revokeKey(keyAdmin(c), c.req.valid('param').id, c.req.valid('json').reason),
    };
    return c.json(body, 200);
  })
  .post('/generate', requireAuth({ role: 'owner' }), jsonBody(generateKeysSchema), async (c) => {
    const result = await generateKeys(keyAdmin(c), await getSettings(c.env.KV), c.req.valid('json'));
    const body: GenerateKeysResponse = {
      ...result,
      message: `Generated ${result.generated} license ${result.generated === 1 ? 'key' : 'keys'}`,
    };
    return c.json(body, 201);
  });
