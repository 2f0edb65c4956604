import { app } from './app';
import { runScheduledJobs } from './domain/scheduled';
import { handleWebhookBatch } from './domain/webhook-delivery';
import type { WebhookMessage } from './domain/webhook-outbox';
import type { Env } from './env';

export default {
  fetch: app.fetch,
  scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduledJobs(env, controller.scheduledTime));
  },
  queue: handleWebhookBatch,
} satisfies ExportedHandler<Env, WebhookMessage>;
