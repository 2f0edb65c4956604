// /api/users/my-keys: the customer's own license keys, paged and searched.
import { Hono } from 'hono';
import type { SignedInEnv } from '../../../platform/context';
import { jsonText } from '../../../platform/request';
import { queryParams } from '../../../platform/validate';
import { listOwnKeys } from '../my-keys';
import { myKeysQuerySchema } from '../schemas/keys';
import { routeOperations } from '../../accounts';
import { myKeysResponseSchema } from '../schemas/answers';

const op = routeOperations({ tag: 'Account', access: 'user' });

export const myKeysRoutes = new Hono<SignedInEnv>().get(
  '/my-keys',
  op('listMyKeys', 'My license keys, paged', { 200: myKeysResponseSchema }, { errors: [400] }),
  queryParams(myKeysQuerySchema),
  async (c) => jsonText(c, await listOwnKeys(c.var.db, c.var.caller.id, c.req.valid('query'))),
);
