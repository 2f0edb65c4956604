// /api/health: a liveness check for uptime monitors, served in maintenance too.
import { Hono } from 'hono';
import type { AppEnv } from '../context';
import { healthSchema } from '../schemas/entities';
import { documented } from '../lib/openapi';

export const healthRoutes = new Hono<AppEnv>().get(
  '/',
  documented({
    operationId: 'getHealth',
    summary: 'Liveness check',
    tag: 'Meta',
    access: 'public',
    responses: { 200: { description: 'OK', schema: healthSchema } },
    servedInMaintenance: true,
  }),
  (c) => c.json({ ok: true }, 200),
);
