// The Worker's bindings and secrets. `wrangler types` writes them into worker-configuration.d.ts
// (`npm run cf-typegen`) from wrangler.toml and the secret names in .dev.vars.example; a test fails
// when that file is stale. Here only what the generator cannot know: which secrets may be unset, and
// the queue's message type.

import type { WebhookMessage } from './webhook-message';
import type { MailMessage } from './mail-message';

/**
 * Secrets and variables a deployment may leave unset, each turning a feature off:
 * APP_URL (links sent by mail, OAuth and Stripe redirects: 404 NOT_CONFIGURED without it),
 * GOOGLE_* (Google sign-in), MAIL_* (an HTTP email API; unset: the local outbox), STRIPE_* (card
 * top-ups; STRIPE_API_BASE points at a stand-in in tests), THROTTLE_EXEMPT_IPS (addresses exempt from
 * the per-IP sign-in limit, e.g. a test runner), WEBHOOKS_ALLOW_LOOPBACK_HTTP ("true" locally: webhook
 * URLs may be http on loopback), LOCAL_DEVELOPMENT ("true" for `npm start` and the tests: mail goes to
 * the local outbox; absent, the Worker is taken as deployed: no outbox, webhook hosts must be public).
 */
type OptionalVars =
  | 'APP_NAME'
  | 'APP_URL'
  | 'GOOGLE_CLIENT_ID'
  | 'GOOGLE_CLIENT_SECRET'
  | 'MAIL_API_URL'
  | 'MAIL_API_KEY'
  | 'MAIL_FROM'
  | 'STRIPE_SECRET_KEY'
  | 'STRIPE_WEBHOOK_SECRET'
  | 'STRIPE_API_BASE'
  | 'THROTTLE_EXEMPT_IPS'
  | 'WEBHOOKS_ALLOW_LOOPBACK_HTTP'
  | 'LOCAL_DEVELOPMENT';

type Generated = Cloudflare.Env;

export type Env = Omit<Generated, OptionalVars | 'WEBHOOK_QUEUE' | 'MAIL_QUEUE'> &
  Partial<Pick<Generated, OptionalVars>> & {
    /** Outbound webhooks: the queue whose consumer (this Worker) delivers them. */
    WEBHOOK_QUEUE: Queue<WebhookMessage>;
    /** Mail: the queue whose consumer (this Worker) sends each mail through the mail API. */
    MAIL_QUEUE: Queue<MailMessage>;
  };
