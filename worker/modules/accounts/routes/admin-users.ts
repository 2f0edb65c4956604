// /api/admin/users: the owner's user management; resellers may list users to pick a customer.
import { Hono, type Context } from 'hono';
import type { SignedInEnv } from '../../../platform/context';
import { addFunds, addUser, changeUser, deleteUser, getUser, listUsers, type AdminContext, type OwnerChange } from '../admin-users';
import type { StepUpProof } from '../schemas/security';
import { toUserJson } from '../users';
import { clientIp, inBackground } from '../../../platform/request';
import { proveCaller } from '../signed-in';
import { jsonBody, pathParams, queryParams } from '../../../platform/validate';
import { addFundsSchema, createUserSchema, listUsersQuery, updateUserSchema, userIdParam } from '../schemas/admin-users';
import { successMessageSchema } from '../../../platform/openapi';
import { routeOperations } from '../operation';
import { getSettings } from '../../settings';
import { adminUserResponseSchema, adminUsersResponseSchema } from '../schemas/answers';

const op = routeOperations({ tag: 'Admin', access: 'owner' });

const admin = (c: Context<SignedInEnv>): AdminContext => ({ db: c.var.db, kv: c.env.KV, actor: c.var.caller, ip: clientIp(c) });

/** Proof from this request's step-up fields, when the change turns out to need it; mail after the answer. */
const ownerChange = (c: Context<SignedInEnv>, proof: StepUpProof): OwnerChange => ({
  prove: (what) => proveCaller(c, proof, what),
  later: (work) => inBackground(c, work),
  env: c.env,
});

export const adminUsersRoutes = new Hono<SignedInEnv>()
  .get(
    '/',
    op(
      'listUsers',
      'Users, paged (a summary of each for a reseller)',
      { 200: adminUsersResponseSchema },
      { access: 'reseller', errors: [400] },
    ),
    queryParams(listUsersQuery),
    async (c) => {
      const { caller } = c.var;
      const view =
        caller.role === 'owner'
          ? ('full' as const)
          : { summaryFor: caller.id, ownCustomersOnly: (await getSettings(c.env.KV)).resellersSellToOwnCustomersOnly };
      return c.json(await listUsers(c.var.db, c.req.valid('query'), view), 200);
    },
  )
  .post(
    '/',
    op(
      'createUser',
      'Create a user (step-up for a reseller or owner)',
      { 201: adminUserResponseSchema },
      { proof: 'conditional', errors: [400, 409] },
    ),
    jsonBody(createUserSchema),
    async (c) => {
      const { currentPassword, code, ...input } = c.req.valid('json');
      const { user, verificationSent } = await addUser(admin(c), input, ownerChange(c, { currentPassword, code }));
      const message =
        verificationSent === null
          ? 'User created successfully'
          : verificationSent
            ? 'User created successfully; a verification link is on its way to their address'
            : 'User created successfully; no verification link could be sent (no mail service or APP_URL on this server)';
      return c.json({ user: toUserJson(user), message }, 201);
    },
  )
  .get('/:id', op('getUser', 'One user', { 200: adminUserResponseSchema }, { errors: [400, 404] }), pathParams(userIdParam), async (c) => {
    const user = await getUser(c.var.db, c.req.valid('param').id);
    return c.json({ user: toUserJson(user) }, 200);
  })
  .put(
    '/:id',
    op(
      'updateUser',
      'Change a user (step-up to raise a role or change the email)',
      { 200: adminUserResponseSchema },
      { proof: 'conditional', errors: [400, 404, 409] },
    ),
    pathParams(userIdParam),
    jsonBody(updateUserSchema),
    async (c) => {
      const { currentPassword, code, ...input } = c.req.valid('json');
      const user = await changeUser(admin(c), c.req.valid('param').id, input, ownerChange(c, { currentPassword, code }));
      return c.json({ user: toUserJson(user), message: 'User updated successfully' }, 200);
    },
  )
  .post(
    '/:id/balance',
    op('addFunds', 'Add USD balance or credits to a user', { 200: adminUserResponseSchema }, { errors: [400, 404] }),
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
    op('deleteUser', 'Delete a user', { 200: successMessageSchema }, { errors: [400, 404, 409] }),
    pathParams(userIdParam),
    async (c) => {
      await deleteUser(admin(c), c.req.valid('param').id);
      return c.json({ success: true, message: 'User deleted successfully' }, 200);
    },
  );
