import { Hono } from 'hono';
import type { AppEnv } from '../context';
import { getSettings } from '../lib/settings';
import { requireAuth } from '../middleware/auth';
import { publicSettings } from '../schemas/settings';

export const settingsRoutes = new Hono<AppEnv>()
  .use(requireAuth)
  .get('/public', async (c) => c.json(publicSettings(await getSettings(c.env.KV)), 200));
