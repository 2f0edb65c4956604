// /api/webhooks: the owner's outbound webhook endpoints and their deliveries (issue 22).
import { Hono } from 'hono';
import type { SignedInEnv } from '../context';
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
} from '../domain/webhook-endpoints';
import { notFound } from '../lib/errors';
import { jsonBody, pathParams, queryParams } from '../lib/validate';
import { requireAuth } from '../middleware/auth';
import {
  createWebhookSchema,
  deliveriesQuery,
  deliveryIdParam,
  updateWebhookSchema,
  webhookIdParam,
  createdWebhookEndpointSchema,
  redeliveryResponseSchema,
  rotatedSecretSchema,
  testEventResponseSchema,
  webhookDeliveriesResponseSchema,
  webhookEndpointSchema,
  webhookEndpointsResponseSchema,
} from '../schemas/webhooks';
import { documented, successMessageSchema } from '../lib/openapi';

export const webhooksRoutes = new Hono<SignedInEnv>()
  .use(requireAuth({ role: 'owner' }))
  .get(
    '/',
    documented({
      operationId: 'listWebhooks',
      summary: 'Webhook endpoints with their health',
      tag: 'Webhooks',
      access: 'owner',
      responses: { 200: { description: 'OK', schema: webhookEndpointsResponseSchema } },
    }),
    async (c) => c.json({ endpoints: await listWebhookEndpoints(c.var.db) }, 200),
  )
  .post(
    '/',
    documented({
      operationId: 'createWebhook',
      summary: 'Add an endpoint; its signing secret is shown once',
      tag: 'Webhooks',
      access: 'owner',
      responses: { 201: { description: 'Created', schema: createdWebhookEndpointSchema } },
      errors: [400, 409],
    }),
    jsonBody(createWebhookSchema),
    async (c) => {
      const created = await createWebhookEndpoint(c.var.db, c.env, c.var.caller.id, c.req.valid('json'));
      return c.json({ ...created, message: 'Webhook endpoint created. Copy the signing secret now: it is shown only once.' }, 201);
    },
  )
  .post(
    '/deliveries/:id/redeliver',
    documented({
      operationId: 'redeliverWebhook',
      summary: 'Send a delivery again',
      tag: 'Webhooks',
      access: 'owner',
      responses: { 202: { description: 'Queued', schema: redeliveryResponseSchema } },
      errors: [400, 404],
    }),
    pathParams(deliveryIdParam),
    async (c) => {
      const delivery = await redeliver(c.var.db, c.env.WEBHOOK_QUEUE, c.req.valid('param').id);
      return c.json({ delivery }, 202);
    },
  )
  .get(
    '/:id',
    documented({
      operationId: 'getWebhook',
      summary: 'One endpoint',
      tag: 'Webhooks',
      access: 'owner',
      responses: { 200: { description: 'OK', schema: webhookEndpointSchema } },
      errors: [400, 404],
    }),
    pathParams(webhookIdParam),
    async (c) => c.json(await getWebhookEndpoint(c.var.db, c.req.valid('param').id), 200),
  )
  .patch(
    '/:id',
    documented({
      operationId: 'updateWebhook',
      summary: 'Change an endpoint',
      tag: 'Webhooks',
      access: 'owner',
      responses: { 200: { description: 'OK', schema: webhookEndpointSchema } },
      errors: [400, 404],
    }),
    pathParams(webhookIdParam),
    jsonBody(updateWebhookSchema),
    async (c) => c.json(await updateWebhookEndpoint(c.var.db, c.env, c.req.valid('param').id, c.req.valid('json')), 200),
  )
  .delete(
    '/:id',
    documented({
      operationId: 'deleteWebhook',
      summary: 'Delete an endpoint',
      tag: 'Webhooks',
      access: 'owner',
      responses: { 200: { description: 'OK', schema: successMessageSchema } },
      errors: [400, 404],
    }),
    pathParams(webhookIdParam),
    async (c) => {
      if (!(await deleteWebhookEndpoint(c.var.db, c.req.valid('param').id))) throw notFound('Webhook endpoint');
      return c.json({ success: true, message: 'Webhook endpoint deleted' }, 200);
    },
  )
  .post(
    '/:id/rotate-secret',
    documented({
      operationId: 'rotateWebhookSecret',
      summary: 'Make a new signing secret; shown once',
      tag: 'Webhooks',
      access: 'owner',
      responses: { 200: { description: 'OK', schema: rotatedSecretSchema } },
      errors: [400, 404],
    }),
    pathParams(webhookIdParam),
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
    documented({
      operationId: 'testWebhook',
      summary: 'Queue a test event to an endpoint',
      tag: 'Webhooks',
      access: 'owner',
      responses: { 202: { description: 'Queued', schema: testEventResponseSchema } },
      errors: [400, 404],
    }),
    pathParams(webhookIdParam),
    async (c) => {
      const { eventId } = await sendTestEvent(c.var.db, c.req.valid('param').id, c.var.caller.id);
      return c.json({ eventId, message: 'Test event queued' }, 202);
    },
  )
  .get(
    '/:id/deliveries',
    documented({
      operationId: 'listWebhookDeliveries',
      summary: "An endpoint's deliveries, paged",
      tag: 'Webhooks',
      access: 'owner',
      responses: { 200: { description: 'OK', schema: webhookDeliveriesResponseSchema } },
      errors: [400, 404],
    }),
    pathParams(webhookIdParam),
    queryParams(deliveriesQuery),
    async (c) => {
      const { page, limit } = c.req.valid('query');
      return c.json(await listDeliveries(c.var.db, c.req.valid('param').id, page, limit), 200);
    },
  );
