// The Google sign-in and connect flow behind modules/accounts/routes/auth-google.ts. The flow's state and PKCE
// verifier wait in a short-lived signed HttpOnly cookie; the callback leaves its outcome (a session
// token, a two-factor challenge, or an error) in another such cookie and sends the browser to the
// app's /login/google page, which collects it with POST /complete. The token never appears in a URL.
import { generateCodeVerifier, generateState } from 'arctic';
import type { Context } from 'hono';
import { deleteCookie, getSignedCookie, setSignedCookie } from 'hono/cookie';
import type { AppEnv } from '../../platform/context';
import { accountForGoogle, connectGoogle, GOOGLE_SCOPES, googleClient, googleConfigured, googleProfile, notConfigured } from './google';
import { recordSecurityEvent } from './security-log';
import { afterFirstFactor } from './sign-in';
import { findUserById } from './users';
import { appUrl } from '../../platform/app-url';
import { AppError, registrationClosed, underMaintenance, type ErrorCode } from '../../platform/errors';
import { timingSafeEqual } from '../../platform/password';
import { requestOrigin } from '../../platform/request';
import { idleLimitMs, isSessionLive } from './sessions';
import { getSettings } from '../settings';

const FLOW_COOKIE = 'kp_google_flow';
const RESULT_COOKIE = 'kp_google_result';
const COOKIE_PATH = '/api/auth/google';
const FLOW_TTL_S = 10 * 60;
const RESULT_TTL_S = 2 * 60;
/** Where the browser lands after Google: the app's page that collects the outcome. */
export const GOOGLE_RETURN_PAGE = '/login/google';

type Intent = 'signin' | 'connect';
type Flow = { state: string; verifier: string; intent: Intent; rememberMe: boolean; userId?: string; sessionId?: string };
export type GoogleOutcome =
  | { kind: 'session'; token: string }
  | { kind: '2fa'; challenge: string }
  | { kind: 'connected' }
  | { kind: 'error'; code: ErrorCode; message: string; intent: Intent };

const cookieSecret = <E extends AppEnv>(c: Context<E>) => `${c.env.JWT_SECRET}:google-cookies`;
const cookieOptions = <E extends AppEnv>(c: Context<E>, maxAge: number) => ({
  path: COOKIE_PATH,
  httpOnly: true,
  secure: new URL(c.req.url).protocol === 'https:',
  // Lax: the callback is a top-level navigation from Google's site, which Strict would not carry.
  sameSite: 'Lax' as const,
  maxAge,
});

/** Sets the flow cookie and returns Google's authorization address. */
export async function startGoogleFlow<E extends AppEnv>(c: Context<E>, flow: Omit<Flow, 'state' | 'verifier'>): Promise<string> {
  if (!googleConfigured(c.env)) throw notConfigured();
  const google = googleClient(c.env, appUrl(c, 'the Google redirect'));
  const state = generateState();
  const verifier = generateCodeVerifier();
  const url = google.createAuthorizationURL(state, verifier, GOOGLE_SCOPES);
  url.searchParams.set('prompt', 'select_account');
  await setSignedCookie(
    c,
    FLOW_COOKIE,
    JSON.stringify({ ...flow, state, verifier } satisfies Flow),
    cookieSecret(c),
    cookieOptions(c, FLOW_TTL_S),
  );
  return url.toString();
}

async function readCookie<T>(c: Context<AppEnv>, name: string): Promise<T | null> {
  const raw = await getSignedCookie(c, cookieSecret(c), name);
  deleteCookie(c, name, cookieOptions(c, 0));
  if (!raw) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return null;
  }
}

const sameText = (a: string, b: string) => timingSafeEqual(new TextEncoder().encode(a), new TextEncoder().encode(b));
export const refused = (message: string) => new AppError('UNAUTHORIZED', message);

/** Everything the callback decides, as an outcome for the app to collect. */
export async function finishGoogleFlow(c: Context<AppEnv>): Promise<GoogleOutcome> {
  const flow = await readCookie<Flow>(c, FLOW_COOKIE);
  const intent: Intent = flow?.intent ?? 'signin';
  try {
    const { code, state, error } = c.req.query();
    if (!flow) throw refused('Your Google sign-in expired or was started in another browser. Please try again.');
    // The state ties this callback to the browser that started the flow (no login CSRF).
    if (!state || !sameText(state, flow.state)) throw refused('Google sign-in could not be verified (state mismatch). Please try again.');
    if (error) throw refused('Google sign-in was cancelled.');
    if (!code) throw refused('Google did not send a sign-in code. Please try again.');
    const google = googleClient(c.env, appUrl(c, 'the Google redirect'));
    const tokens = await google.validateAuthorizationCode(code, flow.verifier).catch(() => {
      throw refused('Google did not confirm the sign-in. Please try again.');
    });
    const profile = googleProfile(tokens, c.env.GOOGLE_CLIENT_ID!);
    const origin = requestOrigin(c);
    const db = c.var.db;
    // While in maintenance only owners are served (this flow's steps are declared served in maintenance).
    const { registrationEnabled, maintenanceMode } = await getSettings(c.env.KV);

    if (flow.intent === 'connect') {
      // The session that asked must still be live: a terminated session cannot finish connecting.
      if (!flow.userId || !flow.sessionId || !(await isSessionLive(db, flow.userId, flow.sessionId, await idleLimitMs(c.env.KV)))) {
        throw refused('Your session has ended. Please sign in and connect Google again.');
      }
      // Started before maintenance began: it finishes for an owner only.
      if (maintenanceMode && (await findUserById(db, flow.userId))?.role !== 'owner') throw underMaintenance();
      await connectGoogle(db, flow.userId, profile);
      await recordSecurityEvent(db, flow.userId, 'google_connected', origin);
      return { kind: 'connected' };
    }

    const newAccounts = maintenanceMode ? underMaintenance() : registrationEnabled ? null : registrationClosed();
    const { user, created } = await accountForGoogle(db, profile, newAccounts);
    if (maintenanceMode && user.role !== 'owner') throw underMaintenance();
    if (created) await recordSecurityEvent(db, user.id, 'register', origin);
    const answer = await afterFirstFactor(c.env, db, user, origin, flow.rememberMe);
    return 'token' in answer ? { kind: 'session', token: answer.token } : { kind: '2fa', challenge: answer.challenge };
  } catch (err) {
    if (err instanceof AppError) return { kind: 'error', code: err.code, message: err.message, intent };
    throw err;
  }
}

/** Leaves the callback's outcome for the app's return page to collect. */
export async function leaveGoogleOutcome(c: Context<AppEnv>, outcome: GoogleOutcome) {
  await setSignedCookie(c, RESULT_COOKIE, JSON.stringify(outcome), cookieSecret(c), cookieOptions(c, RESULT_TTL_S));
}

/** The outcome the callback left, once: the cookie is cleared as it is read. */
export const takeGoogleOutcome = (c: Context<AppEnv>) => readCookie<GoogleOutcome>(c, RESULT_COOKIE);
