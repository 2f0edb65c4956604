// /api/health: a liveness check for uptime monitors, served in maintenance too.
import { Hono } from 'hono';
import type { AppEnv } from '../../platform/context';
import { routeOperations } from '../accounts';
import { healthSchema } from '../../platform/schemas/common';

const op = routeOperations({ tag: 'Meta', access: 'public' });

export const healthRoutes = new Hono<AppEnv>().get(
  '/',
  op('getHealth', 'Liveness check', { 200: healthSchema }, { servedInMaintenance: true }),
  (c) => c.json({ ok: true }, 200),
);
