import { app } from './app';
import { runScheduledJobs } from './domain/scheduled';
import type { Env } from './env';

export default {
  fetch: app.fetch,
  scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduledJobs(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Env>;
