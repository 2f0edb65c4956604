// /api/webhooks: the owner's outbound webhook endpoints and their deliveries (issue 22).
import { Hono } from 'hono';
import type { SignedInEnv } from '../../platform/context';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listDeliveries,
  listWebhookEndpoints,
  redeliver,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhookEndpoint,
} from './endpoints';
import { notFound } from '../../platform/errors';
import { jsonBody, pathParams, queryParams } from '../../platform/validate';
import {
  createWebhookSchema,
  deliveriesQuery,
  deliveryIdParam,
  updateWebhookSchema,
  webhookIdParam,
  createdWebhookEndpointSchema,
  redeliveryResponseSchema,
  rotatedSecretSchema,
  rotateWebhookSecretSchema,
  testEventResponseSchema,
  webhookDeliveriesResponseSchema,
  webhookEndpointSchema,
  webhookEndpointsResponseSchema,
} from './schemas';
import { successMessageSchema } from '../../platform/openapi';
import { proveCaller, routeOperations } from '../accounts';

const op = routeOperations({ tag: 'Webhooks', access: 'owner' });

const webhooksRoutes = new Hono<SignedInEnv>()
  .get('/', op('listWebhooks', 'Webhook endpoints with their health', { 200: webhookEndpointsResponseSchema }), async (c) =>
    c.json({ endpoints: await listWebhookEndpoints(c.var.db) }, 200),
  )
  .post(
    '/',
    op(
      'createWebhook',
      'Add an endpoint (step-up required); its signing secret is shown once',
      { 201: createdWebhookEndpointSchema },
      { proof: 'always', errors: [400, 409] },
    ),
    jsonBody(createWebhookSchema),
    async (c) => {
      const { url, events, description } = c.req.valid('json');
      const created = await createWebhookEndpoint(c.var.db, c.env, c.var.caller.id, { url, events, description });
      return c.json({ ...created, message: 'Webhook endpoint created. Copy the signing secret now: it is shown only once.' }, 201);
    },
  )
  .post(
    '/deliveries/:id/redeliver',
    op(
      'redeliverWebhook',
      'Send a delivery again',
      { 202: { description: 'Queued', schema: redeliveryResponseSchema } },
      { errors: [400, 404, 409] },
    ),
    pathParams(deliveryIdParam),
    async (c) => {
      const delivery = await redeliver(c.var.db, c.env.WEBHOOK_QUEUE, c.req.valid('param').id);
      return c.json({ delivery }, 202);
    },
  )
  .get(
    '/:id',
    op('getWebhook', 'One endpoint', { 200: webhookEndpointSchema }, { errors: [400, 404] }),
    pathParams(webhookIdParam),
    async (c) => c.json(await getWebhookEndpoint(c.var.db, c.req.valid('param').id), 200),
  )
  .patch(
    '/:id',
    op(
      'updateWebhook',
      'Change an endpoint (step-up to change its URL)',
      { 200: webhookEndpointSchema },
      { proof: 'conditional', errors: [400, 404] },
    ),
    pathParams(webhookIdParam),
    jsonBody(updateWebhookSchema),
    async (c) => {
      const { currentPassword, code, ...change } = c.req.valid('json');
      const prove = (what: string) => proveCaller(c, { currentPassword, code }, what);
      return c.json(await updateWebhookEndpoint(c.var.db, c.env, c.req.valid('param').id, change, prove), 200);
    },
  )
  .delete(
    '/:id',
    op('deleteWebhook', 'Delete an endpoint', { 200: successMessageSchema }, { errors: [400, 404] }),
    pathParams(webhookIdParam),
    async (c) => {
      if (!(await deleteWebhookEndpoint(c.var.db, c.req.valid('param').id))) throw notFound('Webhook endpoint');
      return c.json({ success: true, message: 'Webhook endpoint deleted' }, 200);
    },
  )
  .post(
    '/:id/rotate-secret',
    op(
      'rotateWebhookSecret',
      'Make a new signing secret (step-up required); shown once',
      { 200: rotatedSecretSchema },
      { proof: 'always', errors: [400, 404] },
    ),
    pathParams(webhookIdParam),
    jsonBody(rotateWebhookSecretSchema),
    async (c) => {
      const rotated = await rotateWebhookSecret(c.var.db, c.env, c.req.valid('param').id);
      return c.json(
        { ...rotated, message: 'New signing secret made. Copy it now: it is shown only once. Deliveries are signed with it from now on.' },
        200,
      );
    },
  )
  .post(
    '/:id/test',
    op(
      'testWebhook',
      'Queue a test event to an endpoint',
      { 202: { description: 'Queued', schema: testEventResponseSchema } },
      { errors: [400, 404, 409] },
    ),
    pathParams(webhookIdParam),
    async (c) => {
      const { eventId } = await sendTestEvent(c.var.db, c.req.valid('param').id, c.var.caller.id);
      return c.json({ eventId, message: 'Test event queued' }, 202);
    },
  )
  .get(
    '/:id/deliveries',
    op('listWebhookDeliveries', "An endpoint's deliveries, paged", { 200: webhookDeliveriesResponseSchema }, { errors: [400, 404] }),
    pathParams(webhookIdParam),
    queryParams(deliveriesQuery),
    async (c) => {
      const { page, limit } = c.req.valid('query');
      return c.json(await listDeliveries(c.var.db, c.req.valid('param').id, page, limit), 200);
    },
  );

export const webhooksMounts = [['/api/webhooks', webhooksRoutes]] as const;
