// /api/admin/audit-log (owner): what owners and resellers did, paged and filtered.
import { Hono } from 'hono';
import type { SignedInEnv } from '../../platform/context';
import { queryParams } from '../../platform/validate';
import { listAuditLog } from './audit';
import { auditLogQuery, auditLogResponseSchema } from './schemas';
import { routeOperations } from '../accounts';

const op = routeOperations({ tag: 'Admin', access: 'owner' });

const auditRoutes = new Hono<SignedInEnv>().get(
  '/audit-log',
  op('getAuditLog', 'The audit log, paged and filtered', { 200: auditLogResponseSchema }, { errors: [400] }),
  queryParams(auditLogQuery),
  async (c) => c.json(await listAuditLog(c.var.db, c.req.valid('query')), 200),
);

export const auditMounts = [['/api/admin', auditRoutes]] as const;
