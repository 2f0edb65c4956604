// /api/health: a liveness check for uptime monitors, served in maintenance too.
import { Hono } from 'hono';
import type { AppEnv } from '../context';

export const healthRoutes = new Hono<AppEnv>().get('/', (c) => c.json({ ok: true }, 200));
