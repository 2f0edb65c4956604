// /api/admin/stats (owner and reseller, scoped) and /api/admin/audit-log (owner): the Overview tab.
// Middleware is per route: this app is mounted at /api/admin, which other admin apps share.
import { Hono } from 'hono';
import type { AppEnv } from '../context';
import { adminStats } from '../domain/admin-stats';
import { listAuditLog } from '../domain/audit';
import { queryParams } from '../lib/validate';
import { requireAuth } from '../middleware/auth';
import { auditLogQuery } from '../schemas/audit';

export const adminStatsRoutes = new Hono<AppEnv>()
  .get('/stats', requireAuth({ role: 'reseller' }), async (c) => c.json(await adminStats(c.var.db, c.var.caller), 200))
  .get('/audit-log', requireAuth({ role: 'owner' }), queryParams(auditLogQuery), async (c) =>
    c.json(await listAuditLog(c.var.db, c.req.valid('query')), 200),
  );
