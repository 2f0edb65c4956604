// /api/settings: what every signed-in user's app needs (public), and the owner's settings document.
import { Hono, type Context } from 'hono';
import type { SignedInEnv } from '../context';
import { replaceSettings, resetSettings } from '../domain/settings';
import { clientIp } from '../lib/request';
import { getSettings } from '../lib/settings';
import { jsonBody } from '../lib/validate';
import { requireAuth } from '../middleware/auth';
import { publicSettings, settingsSchema, publicSettingsSchema } from '../schemas/settings';
import { documented } from '../lib/openapi';

const owner = requireAuth({ role: 'owner' });
const settingsContext = (c: Context<SignedInEnv>) => ({ db: c.var.db, kv: c.env.KV, actor: c.var.caller, ip: clientIp(c) });

export const settingsRoutes = new Hono<SignedInEnv>()
  .use(requireAuth())
  .get(
    '/public',
    documented({
      operationId: 'getPublicSettings',
      summary: 'What every signed-in app needs of the settings',
      tag: 'Settings',
      access: 'user',
      responses: { 200: { description: 'OK', schema: publicSettingsSchema } },
    }),
    async (c) => c.json(publicSettings(await getSettings(c.env.KV)), 200),
  )
  .get(
    '/',
    owner,
    documented({
      operationId: 'getSettings',
      summary: 'The whole settings document',
      tag: 'Settings',
      access: 'owner',
      responses: { 200: { description: 'OK', schema: settingsSchema } },
    }),
    async (c) => c.json(await getSettings(c.env.KV), 200),
  )
  // The whole document, validated as a whole: a missing or unknown field is a 400.
  .put(
    '/',
    owner,
    documented({
      operationId: 'replaceSettings',
      summary: 'Replace the whole settings document',
      tag: 'Settings',
      access: 'owner',
      responses: { 200: { description: 'OK', schema: settingsSchema } },
      errors: [400],
    }),
    jsonBody(settingsSchema),
    async (c) => c.json(await replaceSettings(settingsContext(c), c.req.valid('json')), 200),
  )
  .post(
    '/reset',
    owner,
    documented({
      operationId: 'resetSettings',
      summary: 'Reset the settings to their defaults',
      tag: 'Settings',
      access: 'owner',
      responses: { 200: { description: 'OK', schema: settingsSchema } },
    }),
    async (c) => c.json(await resetSettings(settingsContext(c)), 200),
  );
