// /api/admin/users: the owner's user management; resellers may list users to pick a customer.
import { Hono, type Context } from 'hono';
import type { SignedInEnv } from '../context';
import { addFunds, createUserAsAdmin, deleteUser, getUser, listUsers, updateUser, type AdminContext } from '../domain/admin-users';
import { sendVerificationIfPossible } from '../domain/email-verification';
import { toUserJson } from '../domain/users';
import { clientIp } from '../lib/request';
import { jsonBody, pathParams, queryParams } from '../lib/validate';
import { requireAuth } from '../middleware/auth';
import { addFundsSchema, createUserSchema, listUsersQuery, updateUserSchema, userIdParam } from '../schemas/admin-users';
import { adminUserResponseSchema, adminUsersResponseSchema } from '../schemas/entities';
import { routeDocs, successMessageSchema } from '../lib/openapi';

const doc = routeDocs({ tag: 'Admin', access: 'owner' });

const owner = requireAuth({ role: 'owner' });
const admin = (c: Context<SignedInEnv>): AdminContext => ({ db: c.var.db, kv: c.env.KV, actor: c.var.caller, ip: clientIp(c) });

export const adminUsersRoutes = new Hono<SignedInEnv>()
  .use(requireAuth())
  .get(
    '/',
    doc(
      'listUsers',
      'Users, paged (a summary of each for a reseller)',
      { 200: adminUsersResponseSchema },
      { access: 'reseller', errors: [400] },
    ),
    requireAuth({ role: 'reseller' }),
    queryParams(listUsersQuery),
    async (c) => {
      const view = c.var.caller.role === 'owner' ? 'full' : 'summary';
      return c.json(await listUsers(c.var.db, c.req.valid('query'), view), 200);
    },
  )
  .post(
    '/',
    doc('createUser', 'Create a user', { 201: adminUserResponseSchema }, { errors: [400, 409] }),
    owner,
    jsonBody(createUserSchema),
    async (c) => {
      const user = await createUserAsAdmin(admin(c), c.req.valid('json'));
      // An address the owner did not vouch for gets its link (when this server can send one).
      const sent = user.emailVerifiedAt ? false : await sendVerificationIfPossible(c.env, c.var.db, user, c.env.APP_URL);
      const message = user.emailVerifiedAt
        ? 'User created successfully'
        : sent
          ? 'User created successfully; a verification link was sent to their address'
          : 'User created successfully; no verification link could be sent (no mail service or APP_URL on this server)';
      return c.json({ user: toUserJson(user), message }, 201);
    },
  )
  .get(
    '/:id',
    doc('getUser', 'One user', { 200: adminUserResponseSchema }, { errors: [400, 404] }),
    owner,
    pathParams(userIdParam),
    async (c) => {
      const user = await getUser(c.var.db, c.req.valid('param').id);
      return c.json({ user: toUserJson(user) }, 200);
    },
  )
  .put(
    '/:id',
    doc('updateUser', 'Change a user', { 200: adminUserResponseSchema }, { errors: [400, 404, 409] }),
    owner,
    pathParams(userIdParam),
    jsonBody(updateUserSchema),
    async (c) => {
      const user = await updateUser(admin(c), c.req.valid('param').id, c.req.valid('json'));
      return c.json({ user: toUserJson(user), message: 'User updated successfully' }, 200);
    },
  )
  .post(
    '/:id/balance',
    doc('addFunds', 'Add USD balance or credits to a user', { 200: adminUserResponseSchema }, { errors: [400, 404] }),
    owner,
    pathParams(userIdParam),
    jsonBody(addFundsSchema),
    async (c) => {
      const input = c.req.valid('json');
      const user = await addFunds(admin(c), c.req.valid('param').id, input);
      const message = input.type === 'credits' ? `Added ${input.amount} credits` : `Added $${input.amount.toFixed(2)} to the balance`;
      return c.json({ user: toUserJson(user), message }, 200);
    },
  )
  .delete(
    '/:id',
    doc('deleteUser', 'Delete a user', { 200: successMessageSchema }, { errors: [400, 404, 409] }),
    owner,
    pathParams(userIdParam),
    async (c) => {
      await deleteUser(admin(c), c.req.valid('param').id);
      return c.json({ success: true, message: 'User deleted successfully' }, 200);
    },
  );
