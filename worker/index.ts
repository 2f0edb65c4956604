import { app } from './app';
import { runScheduledJobs } from './scheduled';
import type { WebhookMessage } from './platform/webhook-message';
import type { Env } from './platform/env';
import { handleWebhookBatch } from './modules/webhooks/jobs';

export default {
  fetch: app.fetch,
  scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduledJobs(env, controller.scheduledTime));
  },
  queue: handleWebhookBatch,
} satisfies ExportedHandler<Env, WebhookMessage>;
