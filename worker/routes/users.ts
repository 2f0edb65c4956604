import { Hono } from 'hono';
import type { AppEnv } from '../context';
import { dashboardStats } from '../domain/stats';
import { findUserById, toUserJson } from '../domain/users';
import { notFound } from '../lib/errors';
import { requireAuth } from '../middleware/auth';

export const usersRoutes = new Hono<AppEnv>()
  .use(requireAuth)
  .get('/profile', async (c) => {
    const user = await findUserById(c.var.db, c.var.user.id);
    if (!user) throw notFound('User');
    return c.json(toUserJson(user), 200);
  })
  .get('/stats', async (c) => c.json(await dashboardStats(c.var.db, c.var.user), 200));
