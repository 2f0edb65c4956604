// /api/settings: what every signed-in user's app needs (public), and the owner's settings document.
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../context';
import { replaceSettings, resetSettings } from '../domain/settings';
import { clientIp } from '../lib/request';
import { getSettings } from '../lib/settings';
import { jsonBody } from '../lib/validate';
import { requireAuth, requireRole } from '../middleware/auth';
import { publicSettings, settingsSchema } from '../schemas/settings';

const owner = requireRole('owner');
const settingsContext = (c: Context<AppEnv>) => ({ db: c.var.db, kv: c.env.KV, actor: c.var.user, ip: clientIp(c) });

export const settingsRoutes = new Hono<AppEnv>()
  .use(requireAuth)
  .get('/public', async (c) => c.json(publicSettings(await getSettings(c.env.KV)), 200))
  .get('/', owner, async (c) => c.json(await getSettings(c.env.KV), 200))
  // The whole document, validated as a whole: a missing or unknown field is a 400.
  .put('/', owner, jsonBody(settingsSchema), async (c) => c.json(await replaceSettings(settingsContext(c), c.req.valid('json')), 200))
  .post('/reset', owner, async (c) => c.json(await resetSettings(settingsContext(c)), 200));
