// A local stand-in for the Stripe API, for tests and offline demos: a small HTTP server that answers
// the calls KeyPanel makes the way Stripe does, records each one, and serves a checkout page whose
// Pay button sends the signed `checkout.session.completed` webhook and returns to the success URL,
// as Stripe Checkout does. The Worker's code paths stay the real ones: only STRIPE_API_BASE differs.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Stripe from 'stripe';

export type RecordedRequest = {
  method: string;
  path: string;
  idempotencyKey: string | null;
  authorization: string | null;
  params: Record<string, string>;
};

export type StandInSession = {
  id: string;
  object: 'checkout.session';
  mode: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid';
  currency: string;
  amount_total: number;
  client_reference_id: string | null;
  customer_email: string | null;
  metadata: Record<string, string>;
  payment_intent: string | null;
  success_url: string;
  cancel_url: string;
  url: string;
  livemode: false;
  created: number;
};

export type StandInOptions = {
  port?: number;
  /** Where the checkout page's Pay button delivers the signed webhook (the Worker's endpoint). */
  webhookUrl?: string;
  webhookSecret?: string;
};

export type StripeStandIn = {
  url: string;
  requests: RecordedRequest[];
  sessions: Map<string, StandInSession>;
  /** A signed event for one of the stand-in's sessions (or any object), as Stripe would deliver it. */
  signedEvent(type: string, object: unknown): { body: string; signature: string };
  close(): Promise<void>;
};

const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;

/** A Stripe event wrapping `object`, as JSON text, with the Stripe-Signature header for `secret`. */
export function signedStripeEvent(type: string, object: unknown, secret: string) {
  const body = JSON.stringify({
    id: id('evt'),
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: Math.floor(Date.now() / 1000),
    type,
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
  });
  return { body, signature: Stripe.webhooks.generateTestHeaderString({ payload: body, secret }) };
}

export async function startStripeStandIn(options: StandInOptions = {}): Promise<StripeStandIn> {
  const requests: RecordedRequest[] = [];
  const sessions = new Map<string, StandInSession>();
  const byIdempotencyKey = new Map<string, { params: string; session: StandInSession }>();
  /**
   * Answers queued by a test (POST /_stand-in/fail): the next API calls whose body contains `match`
   * (any call without one) fail with these statuses, so tests running side by side keep their own.
   */
  const failures: Array<{ status: number; match?: string }> = [];
  let base = '';

  // answer settles every request itself (a 500 for what it did not expect), so nothing awaits it.
  const server = createServer((req, res) => void answer(req, res));

  async function answer(req: IncomingMessage, res: ServerResponse) {
    try {
      const url = new URL(req.url ?? '/', base);
      const text = await readBody(req);
      if (url.pathname === '/_stand-in/requests') return json(res, 200, { requests });
      if (url.pathname === '/_stand-in/fail' && req.method === 'POST') {
        const { status = 500, times = 1, match } = JSON.parse(text || '{}') as { status?: number; times?: number; match?: string };
        for (let i = 0; i < times; i++) failures.push({ status, match });
        return json(res, 200, { queued: failures.length });
      }
      if (url.pathname.startsWith('/v1/')) {
        const params = Object.fromEntries(new URLSearchParams(text));
        requests.push({
          method: req.method ?? 'GET',
          path: url.pathname,
          idempotencyKey: header(req, 'idempotency-key'),
          authorization: header(req, 'authorization'),
          params,
        });
        const at = failures.findIndex((f) => f.match === undefined || text.includes(f.match));
        const failure = at === -1 ? undefined : failures.splice(at, 1)[0].status;
        if (failure) return json(res, failure, { error: { type: 'api_error', message: 'The stand-in was told to fail this call' } });
        if (!header(req, 'authorization')?.startsWith('Bearer sk_')) {
          return json(res, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
        }
        if (url.pathname === '/v1/checkout/sessions' && req.method === 'POST')
          return createSession(res, params, header(req, 'idempotency-key'));
        const found = url.pathname.match(/^\/v1\/checkout\/sessions\/([^/]+)$/);
        if (found && req.method === 'GET') {
          const session = sessions.get(found[1]);
          return session
            ? json(res, 200, session)
            : json(res, 404, { error: { type: 'invalid_request_error', message: 'No such checkout.session' } });
        }
        return json(res, 404, {
          error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${url.pathname})` },
        });
      }
      const page = url.pathname.match(/^\/checkout\/([^/]+)(\/pay)?$/);
      const session = page && sessions.get(page[1]);
      if (session && !page[2] && req.method === 'GET') return checkoutPage(res, session);
      if (session && page[2] && req.method === 'POST') return pay(res, session);
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
    } catch (err) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
    }
  }

  function createSession(res: ServerResponse, params: Record<string, string>, idempotencyKey: string | null) {
    const fingerprint = JSON.stringify(params);
    const earlier = idempotencyKey ? byIdempotencyKey.get(idempotencyKey) : undefined;
    if (earlier && earlier.params !== fingerprint) {
      return json(res, 400, {
        error: {
          type: 'idempotency_error',
          message: 'Keys for idempotent requests can only be used with the same parameters they were first used with.',
        },
      });
    }
    if (earlier) return json(res, 200, earlier.session);
    const unitAmount = Number(params['line_items[0][price_data][unit_amount]']);
    const quantity = Number(params['line_items[0][quantity]'] ?? 1);
    if (params.mode !== 'payment' || !Number.isInteger(unitAmount) || unitAmount < 1 || !params.success_url || !params.cancel_url) {
      return json(res, 400, {
        error: { type: 'invalid_request_error', message: 'The stand-in takes payment-mode sessions with one priced line item' },
      });
    }
    const sessionId = id('cs');
    const metadata = Object.fromEntries(
      Object.entries(params)
        .filter(([k]) => k.startsWith('metadata['))
        .map(([k, v]) => [k.slice('metadata['.length, -1), v]),
    );
    const session: StandInSession = {
      id: sessionId,
      object: 'checkout.session',
      mode: 'payment',
      status: 'open',
      payment_status: 'unpaid',
      currency: params['line_items[0][price_data][currency]'] ?? 'usd',
      amount_total: unitAmount * quantity,
      client_reference_id: params.client_reference_id ?? null,
      customer_email: params.customer_email ?? null,
      metadata,
      payment_intent: null,
      success_url: params.success_url,
      cancel_url: params.cancel_url,
      url: `${base}/checkout/${sessionId}`,
      livemode: false,
      created: Math.floor(Date.now() / 1000),
    };
    sessions.set(sessionId, session);
    if (idempotencyKey) byIdempotencyKey.set(idempotencyKey, { params: fingerprint, session });
    return json(res, 200, session);
  }

  function checkoutPage(res: ServerResponse, session: StandInSession) {
    const amount = `$${(session.amount_total / 100).toFixed(2)}`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Stripe Checkout (stand-in)</title></head>
<body><main><h1>Pay ${amount}</h1><p>Stripe Checkout stand-in for ${escapeHtml(session.customer_email ?? 'a customer')}.</p>
<form method="post" action="/checkout/${session.id}/pay"><button type="submit">Pay ${amount}</button></form>
<p><a href="${escapeHtml(session.cancel_url)}">Cancel and go back</a></p></main></body></html>`);
  }

  async function pay(res: ServerResponse, session: StandInSession) {
    if (session.status === 'open') {
      session.status = 'complete';
      session.payment_status = 'paid';
      session.payment_intent = id('pi');
      if (options.webhookUrl && options.webhookSecret) {
        const { body, signature } = signedStripeEvent('checkout.session.completed', session, options.webhookSecret);
        await fetch(options.webhookUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'stripe-signature': signature },
          body,
        });
      }
    }
    res.writeHead(303, { location: session.success_url.replace('{CHECKOUT_SESSION_ID}', session.id) }).end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: base,
    requests,
    sessions,
    signedEvent: (type, object) => signedStripeEvent(type, object, options.webhookSecret ?? ''),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (data += chunk));
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
};

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') }).end(JSON.stringify(body));
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const STAND_IN_SECRET_KEY = 'sk_test_stand_in';
export const STAND_IN_WEBHOOK_SECRET = 'whsec_test_stand_in';

/**
 * A stand-in whose checkout page delivers its webhooks to a Worker about to listen on `workerPort`,
 * and the STRIPE_* secrets that Worker needs to use it (for scripts/local.ts startServer).
 */
export async function standInForWorker(workerPort: number) {
  const standIn = await startStripeStandIn({
    webhookUrl: `http://127.0.0.1:${workerPort}/api/payments/stripe/webhook`,
    webhookSecret: STAND_IN_WEBHOOK_SECRET,
  });
  const secrets = { STRIPE_SECRET_KEY: STAND_IN_SECRET_KEY, STRIPE_WEBHOOK_SECRET: STAND_IN_WEBHOOK_SECRET, STRIPE_API_BASE: standIn.url };
  return { standIn, secrets };
}
