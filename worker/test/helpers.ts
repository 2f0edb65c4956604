// Shared test helpers: calls through the Worker's own fetch, and users of each role.
import { env } from 'cloudflare:test';
import { exports } from 'cloudflare:workers';
import { checkAnswer } from '../../scripts/api-contract';
import { createDb } from '../platform/db/client';
import { createUser } from '../modules/accounts/users';
import { clearSettingsCache, saveSettings } from '../modules/settings/store';
import { passThrough } from '../platform/proxy';
import { createSession, listSessions } from '../modules/accounts/sessions';
import type { TestAnswerBody } from '../platform/api-client';
import { DEFAULT_SETTINGS, type Settings } from '../modules/settings/schemas';
import { type Role } from '../platform/vocabulary';

export const db = () => createDb(env.DB);

/**
 * `real`, with each statement it prepares shown to `prepare` (its SQL and the statement, before it
 * is handed out) and each batch shown to `batch` (awaited before the batch runs): for tests that
 * record, count or step into what the code sends to D1. Everything else reaches `real` as it is.
 */
export function interceptedD1(
  real: D1Database,
  hooks: { prepare?: (sql: string, statement: D1PreparedStatement) => void; batch?: (statements: D1PreparedStatement[]) => unknown },
): D1Database {
  return new Proxy(real, {
    get(target, prop) {
      if (prop === 'prepare' && hooks.prepare) {
        return (sql: string) => {
          const statement = target.prepare(sql);
          hooks.prepare!(sql, statement);
          return statement;
        };
      }
      if (prop === 'batch' && hooks.batch) {
        return async (statements: D1PreparedStatement[]) => {
          await hooks.batch!(statements);
          return target.batch(statements);
        };
      }
      return passThrough(target, prop);
    },
  });
}

/** An answer as a test sees it: the body typed by the document for the call's method and path. */
export type ApiResult<T = unknown> = { status: number; body: T; headers: Headers };

let ipCounter = 0;
/** Each test call comes from its own address unless one is given, so throttling per IP stays out of the way. */
export const freshIp = () => `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter++ & 255}`;

export type ApiOptions = {
  /** Unchecked: tests send malformed bodies on purpose. */
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
  rawBody?: string;
  ip?: string;
  /** Another way to reach the Worker (a test's own bindings); the Worker's own fetch by default. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
};

export async function api<M extends string, P extends string>(
  method: M,
  path: P,
  options: ApiOptions = {},
): Promise<ApiResult<TestAnswerBody<M, P>>> {
  const headers: Record<string, string> = { 'cf-connecting-ip': options.ip ?? freshIp(), ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  } else if (body !== undefined) {
    headers['content-type'] ??= 'application/json';
  }
  const url = `http://localhost${path}`;
  const res = options.fetch
    ? await options.fetch(url, { method, headers, body })
    : await exports.default.fetch(url, { method, headers, body });
  const text = await res.text();
  checkAnswer({ method, path, status: res.status, contentType: res.headers.get('content-type'), text });
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, body: parsed as TestAnswerBody<M, P>, headers: res.headers };
}

let userCounter = 0;
export const uniqueName = (prefix = 'user') => `${prefix}${Date.now().toString(36)}${userCounter++}`;

export const TEST_PASSWORD = 'Steady-Secret-9';

/** A user of the given role created in the database, signed in through the API. */
export async function signedInUser(
  role: Role = 'user',
  extra: { credits?: number; balanceCents?: number; username?: string; emailVerified?: boolean } = {},
) {
  const username = extra.username ?? uniqueName(role);
  const email = `${username}@example.com`;
  // Verified unless asked otherwise, as every account made before addresses were proven (migration 0018).
  const user = await createUser(db(), { username, email, password: TEST_PASSWORD, role, emailVerified: true, ...extra });
  const login = await api('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } });
  if (login.status !== 200) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
  return { user, token: login.body.token as string, email, username };
}

/** The account's live sessions as the Security page lists them (the default idle limit). */
export const liveSessions = (userId: string, database: D1Database = env.DB) =>
  listSessions(createDb(database), userId, DEFAULT_SETTINGS.sessionIdleDays * 24 * 60 * 60 * 1000);

/** A session opened directly (not through sign-in), e.g. one whose last call was long ago: its token. */
export async function openSessionAt(user: { id: string; role: Role }, at: number, rememberMe = true): Promise<string> {
  const opened = await createSession(db(), env.JWT_SECRET, user, { ipAddress: null, userAgent: null, location: null }, rememberMe, at);
  if (!opened) throw new Error('the account changed under the session');
  return opened.token;
}

/**
 * Checks that every user's balances equal the sum of their ledger rows; returns the users that
 * do not reconcile (an empty list when all is well).
 */
export async function unreconciledUsers(): Promise<
  Array<{ id: string; credits: number; balanceCents: number; ledgerCredits: number; ledgerCents: number }>
> {
  const { results } = await env.DB.prepare(
    `SELECT u.id, u.credits, u.balance_cents AS balanceCents,
            COALESCE(SUM(l.credits_delta), 0) AS ledgerCredits, COALESCE(SUM(l.usd_cents_delta), 0) AS ledgerCents
       FROM users u LEFT JOIN ledger l ON l.user_id = u.id
      GROUP BY u.id
     HAVING u.credits != ledgerCredits OR u.balance_cents != ledgerCents`,
  ).all<{ id: string; credits: number; balanceCents: number; ledgerCredits: number; ledgerCents: number }>();
  return results;
}

/**
 * The settings the shared test KV holds: the defaults, except that products may allow up to 100
 * devices per key (the default bound of 1 would refuse the multi-device products many tests make).
 * Tests that change a setting in the shared KV restore this, never the bare defaults.
 */
export const TEST_SETTINGS = { ...DEFAULT_SETTINGS, maxActivationsPerKey: 100 };

/** Runs `work` with these settings changed, then puts the test settings back, whatever happens. */
export async function withSettings(changes: Partial<Settings>, work: () => Promise<void>) {
  await saveSettings(env.KV, { ...TEST_SETTINGS, ...changes });
  try {
    await work();
  } finally {
    await saveSettings(env.KV, TEST_SETTINGS);
    clearSettingsCache();
  }
}

/**
 * Waits for the next minute when the current one is nearly over, so that a test counting calls in
 * per-minute windows (sign-in failures, calls per session) never sees its window roll over midway.
 */
export async function clearOfMinuteEdge(marginMs = 5_000) {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
