import { app } from './app';
import { runCron } from './scheduled';
import type { WebhookMessage } from './platform/webhook-message';
import type { MailMessage } from './platform/mail';
import type { Env } from './platform/env';
import { handleWebhookBatch } from './modules/webhooks/jobs';
import { handleMailBatch } from './modules/mail/jobs';

export default {
  fetch: app.fetch,
  scheduled(controller, env, ctx) {
    ctx.waitUntil(runCron(env, controller.cron, controller.scheduledTime));
  },
  // Two queues, one consumer each: mail (and its dead letters), and webhooks.
  async queue(batch, env) {
    if (batch.queue.startsWith('keypanel-mail')) return handleMailBatch(batch as MessageBatch<MailMessage>, env);
    return handleWebhookBatch(batch as MessageBatch<WebhookMessage>, env);
  },
} satisfies ExportedHandler<Env, WebhookMessage | MailMessage>;
