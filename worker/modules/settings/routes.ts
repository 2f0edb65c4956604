// /api/settings: what every signed-in user's app needs (public), and the owner's settings document.
import { Hono, type Context } from 'hono';
import type { SignedInEnv } from '../../platform/context';
import { replaceSettings, resetSettings, serverStatus } from './settings';
import { clientIp } from '../../platform/request';
import { getSettings } from './store';
import { jsonBody } from '../../platform/validate';
import { publicSettings, serverStatusSchema, settingsSchema, publicSettingsSchema } from './schemas';
import { routeOperations } from '../accounts';

const op = routeOperations({ tag: 'Settings', access: 'owner' });

const settingsContext = (c: Context<SignedInEnv>) => ({ db: c.var.db, kv: c.env.KV, actor: c.var.caller, ip: clientIp(c) });

const settingsRoutes = new Hono<SignedInEnv>()
  .get(
    '/public',
    op('getPublicSettings', 'What every signed-in app needs of the settings', { 200: publicSettingsSchema }, { access: 'user' }),
    async (c) => c.json(publicSettings(await getSettings(c.env.KV)), 200),
  )
  .get('/server', op('getServerStatus', "What the server's configuration allows (mail)", { 200: serverStatusSchema }), (c) =>
    c.json(serverStatus(c.env), 200),
  )
  .get('/', op('getSettings', 'The whole settings document', { 200: settingsSchema }), async (c) =>
    c.json(await getSettings(c.env.KV), 200),
  )
  // The whole document, validated as a whole: a missing or unknown field is a 400.
  .put(
    '/',
    op('replaceSettings', 'Replace the whole settings document', { 200: settingsSchema }, { errors: [400] }),
    jsonBody(settingsSchema),
    async (c) => c.json(await replaceSettings(settingsContext(c), c.req.valid('json')), 200),
  )
  .post('/reset', op('resetSettings', 'Reset the settings to their defaults', { 200: settingsSchema }), async (c) =>
    c.json(await resetSettings(settingsContext(c)), 200),
  );

export const settingsMounts = [['/api/settings', settingsRoutes]] as const;
