// Test files share one D1 database and one KV namespace, and run side by side. Some tests need
// what sharing forbids: turning maintenance mode on or changing the rate (which would disturb
// every other file for a while), or a table to themselves (the last owner, exact totals).
// A sandbox runs the Worker with its own settings document (the `settings` key lives in memory;
// sessions and everything else go to the real KV) and, on request, the ISOLATED_DB database.
import { applyD1Migrations, createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { app } from '../app';
import { createDb } from '../platform/db/client';
import { createUser } from '../modules/accounts/users';
import type { Env } from '../platform/env';
import type { MailMessage } from '../platform/mail';
import { deliverMail } from '../modules/mail/delivery';
import { SETTINGS_KV_KEY } from '../modules/settings/store';
import { passThrough } from '../platform/proxy';
import { DEFAULT_SETTINGS, type Settings } from '../modules/settings/schemas';
import { api, TEST_PASSWORD, uniqueName } from './helpers';
import { type Role } from '../platform/vocabulary';

type ApiOptions = Omit<NonNullable<Parameters<typeof api>[2]>, 'fetch'>;

function kvWithOwnSettings(real: KVNamespace, initial: Settings) {
  let stored: string | null = JSON.stringify(initial);
  const kv = new Proxy(real, {
    get(target, prop) {
      if (prop === 'get') {
        return (key: string, type?: unknown) => {
          if (key !== SETTINGS_KV_KEY) return target.get(key, type as 'text');
          if (stored === null) return Promise.resolve(null);
          const wantsJson = type === 'json' || (type as { type?: string } | undefined)?.type === 'json';
          return Promise.resolve(wantsJson ? JSON.parse(stored) : stored);
        };
      }
      if (prop === 'put') {
        return (key: string, value: string, options?: KVNamespacePutOptions) => {
          if (key !== SETTINGS_KV_KEY) return target.put(key, value, options);
          stored = value;
          return Promise.resolve();
        };
      }
      return passThrough(target, prop);
    },
  });
  return {
    kv,
    stored: (): Settings | null => (stored === null ? null : (JSON.parse(stored) as Settings)),
    store: (settings: Settings) => {
      stored = JSON.stringify(settings);
    },
  };
}

/**
 * ISOLATED_DB belongs to one test file (admin-isolated.test.ts), whose tests run one at a time;
 * `isolatedDb: true` empties it first. `isolatedDb: env.FUZZ_DB` does the same with another
 * database a file has to itself.
 */
export async function sandbox(
  options: {
    settings?: Partial<Settings>;
    isolatedDb?: boolean | D1Database;
    bindings?: Partial<Env>;
    /** The Worker's DB seen through this (a test that acts between a request's round trips). */
    wrapD1?: (d1: D1Database) => D1Database;
  } = {},
) {
  const settings = kvWithOwnSettings(env.KV, { ...DEFAULT_SETTINGS, ...options.settings });
  const d1 = options.isolatedDb === true ? env.ISOLATED_DB : options.isolatedDb || env.DB;
  if (options.isolatedDb) {
    await applyD1Migrations(d1, env.TEST_MIGRATIONS);
    const tables = [
      'activations',
      'license_keys',
      'products',
      'ledger',
      'audit_log',
      'security_log',
      'recovery_tokens',
      'password_reset_tokens',
      'api_tokens',
      'reseller_tiers',
      'users',
    ];
    await d1.batch(tables.map((t) => d1.prepare(`DELETE FROM ${t}`)));
  }
  const sandboxEnv: Env = {
    ...(env as unknown as Env),
    ...options.bindings,
    KV: settings.kv,
    DB: options.wrapD1 ? options.wrapD1(d1) : d1,
  };
  // The real queue's consumer reads the shared database: the sandbox's mail is delivered in its own.
  sandboxEnv.MAIL_QUEUE = {
    sendBatch: async (messages: Array<{ body: MailMessage }>) => {
      for (const message of messages) await deliverMail(sandboxEnv, message.body.mailId);
    },
  } as unknown as Env['MAIL_QUEUE'];
  const db = createDb(d1);

  async function fetchWorker(url: string, init: RequestInit) {
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(url, init), sandboxEnv, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  }
  const call = <M extends string, P extends string>(method: M, path: P, opts: ApiOptions = {}) =>
    api(method, path, { ...opts, fetch: fetchWorker });

  return {
    /** The test helper `api`, against the Worker running in this sandbox. */
    api: call,
    db,
    d1,
    kv: settings.kv,
    /** The settings document as stored (not through any cache). */
    storedSettings: settings.stored,
    storeSettings: settings.store,
    /** A user created in this sandbox's database and signed in through its Worker. */
    async signedInUser(role: Role = 'user', extra: { credits?: number; balanceCents?: number; isActive?: boolean } = {}) {
      const username = uniqueName(role);
      const email = `${username}@example.com`;
      const user = await createUser(db, { username, email, password: TEST_PASSWORD, role, emailVerified: true, ...extra });
      const login = await call('POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } });
      return { user, token: (login.body?.token ?? null) as string, email, username, login };
    },
  };
}
export type Sandbox = Awaited<ReturnType<typeof sandbox>>;
