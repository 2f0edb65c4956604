// Maintenance mode ("blocks all user access"): while it is on, every API call of
// anyone but an owner answers 503 MAINTENANCE. Owners keep working, and licensed software keeps
// being served by the licensing API.
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../context';
import { AppError } from '../lib/errors';
import { endSession, readSession } from '../lib/sessions';
import { getSettings } from '../lib/settings';
import { identify } from './auth';

export const MAINTENANCE_MESSAGE = 'KeyPanel is under maintenance. Please try again later.';

/**
 * Served whatever the mode: licensed apps in the field, the health check, Stripe's webhook (a
 * payment made before maintenance began is still credited; Stripe would otherwise retry for days),
 * and the API reference with its document, which hold no account's data (their "try it" calls are
 * refused like any other).
 */
const ALWAYS_SERVED = ['/api/v1/licenses/', '/api/health', '/api/payments/stripe/webhook', '/api/docs', '/api/openapi.json'];
/**
 * Sign-in checks the credentials first, so an owner can still sign in; the session it gives a
 * non-owner is ended at once (below). Signing out only takes access away, so it stays allowed.
 */
const SIGN_IN_PREFIX = '/api/auth/login';
const SIGN_OUT = '/api/auth/logout';
/**
 * Google sign-in is browser navigations (to Google and back), so a 503 here would show the browser
 * raw JSON and keep owners who sign in with Google out. Its steps run; the flow itself lets only
 * owners in and opens no account (lib/google-flow.ts), and the app's return page shows the message.
 */
const GOOGLE_SIGN_IN_PREFIX = '/api/auth/google';

export const underMaintenance = () => new AppError('MAINTENANCE', MAINTENANCE_MESSAGE);

/** The route `prefix` itself or one of its steps below it. */
const within = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

export const maintenanceMode = createMiddleware<AppEnv>(async (c, next) => {
  const path = c.req.path;
  if (ALWAYS_SERVED.some((p) => path === p || path.startsWith(p)) || path === SIGN_OUT) return next();
  if (!(await getSettings(c.env.KV)).maintenanceMode) return next();
  if (within(path, SIGN_IN_PREFIX)) return signInDuringMaintenance(c, next);
  if (within(path, GOOGLE_SIGN_IN_PREFIX)) return next();
  if ((await callerRole(c)) !== 'owner') throw underMaintenance();
  return next();
});

/** The caller's role from their session; null for a guest or a session that is no longer valid. */
async function callerRole(c: Context<AppEnv>) {
  if (!c.req.header('authorization')) return null;
  try {
    // The same check every route makes, so a token that passes here passes there.
    const caller = await identify(c);
    c.set('caller', caller);
    return caller.role;
  } catch (err) {
    if (err instanceof AppError && err.status === 401) return null;
    throw err;
  }
}

/**
 * Lets any sign-in step check the credentials (wrong ones still get their honest answer), then
 * turns a session issued to a non-owner into the maintenance answer and ends that session.
 */
async function signInDuringMaintenance(c: Context<AppEnv>, next: () => Promise<void>) {
  await next();
  if (c.res.status !== 200) return;
  const body = (await c.res
    .clone()
    .json()
    .catch(() => null)) as { token?: unknown; user?: { role?: unknown } } | null;
  if (typeof body?.token !== 'string' || body.user?.role === 'owner') return;
  const session = await readSession(c.env, body.token);
  if (session) await endSession(c.env.KV, session.userId, session.id);
  const error = underMaintenance();
  c.res = c.json(error.body, error.status);
}
