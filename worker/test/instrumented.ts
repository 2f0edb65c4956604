// The Worker run with counting bindings: every D1 round trip (a batch, or one statement run on its
// own), the statements that write, the rows D1 read and wrote, the D1 sessions opened, the KV reads
// and writes and the call limiter's calls of one request, including what it leaves to run after its
// answer (waitUntil).
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { expect } from 'vitest';
import { app } from '../app';
import type { Env } from '../platform/env';
import { passThrough } from '../platform/proxy';

export type RequestCost = {
  /** How each D1 session was opened: a constraint, or 'bookmark'. */
  sessions: string[];
  /** Each round trip's statements (a lone statement is a round trip of one). */
  roundTrips: string[][];
  /** Statements that change rows (the caller guard, which writes nothing, is not one). */
  writes: string[];
  kvReads: number;
  kvWrites: number;
  limiterCalls: number;
  /** Rows D1 read and wrote, as it counts (and bills) them: each statement's result metadata. */
  rowsRead: number;
  rowsWritten: number;
};

type RowsMeta = { rows_read?: number; rows_written?: number } | undefined;
/** What the binding keeps of D1: the fetcher its calls go through (workerd's D1 binding, local or deployed). */
type FetcherBacked = { fetcher: Fetcher; alwaysPrimarySession?: { fetcher: Fetcher } };

/**
 * `real`, with each call's answer shown to `onResult` per statement: workerd's D1 binding sends every
 * call through its fetcher, and D1 answers each statement with its rows read and written, which
 * `first()` and `raw()` do not hand to the caller. A copy of the binding over a counting fetcher, so
 * its own methods (sessions, bookmarks, batches) run unchanged.
 */
export function meteredD1(real: D1Database, onResult: (meta: RowsMeta) => void): D1Database {
  const backed = real as unknown as FetcherBacked;
  if (!backed.fetcher) throw new Error('meteredD1: this D1 binding has no fetcher to count through');
  const fetcher = {
    async fetch(input: RequestInfo | URL, init?: RequestInit) {
      const res = await backed.fetcher.fetch(input, init);
      if (res.ok) for (const result of [await res.clone().json()].flat() as { meta?: RowsMeta }[]) onResult(result?.meta);
      return res;
    },
  };
  const over = <T extends object>(object: T): T =>
    Object.assign(Object.create(Object.getPrototypeOf(object) as object) as T, object, { fetcher });
  const copy = over(real);
  if (backed.alwaysPrimarySession) (copy as unknown as FetcherBacked).alwaysPrimarySession = over(backed.alwaysPrimarySession);
  return copy;
}

const WRITE = /^\s*(?:WITH\b[\s\S]*?\)\s*)?(?:INSERT|UPDATE|DELETE|REPLACE)\b/i;
const GUARD = /^\s*INSERT INTO caller_guard\b/i;

export function instrumentedWorker() {
  let cost = emptyCost();
  const record = (statements: string[]) => {
    cost.roundTrips.push(statements);
    cost.writes.push(...statements.filter((sql) => WRITE.test(sql) && !GUARD.test(sql)));
  };
  const sqlOf = new WeakMap<object, string>();
  const ownOf = new WeakMap<object, D1PreparedStatement>();

  const statement = (real: D1PreparedStatement, sql: string): D1PreparedStatement => {
    const wrapper = new Proxy(real, {
      get(target, prop) {
        if (prop === 'bind') return (...values: unknown[]) => statement(target.bind(...values), sql);
        if (prop === 'run' || prop === 'all' || prop === 'first' || prop === 'raw') {
          return (...args: unknown[]) => {
            record([sql]);
            return (target[prop] as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return passThrough(target, prop);
      },
    });
    sqlOf.set(wrapper, sql);
    ownOf.set(wrapper, real);
    return wrapper;
  };
  const database = <T extends D1Database | D1DatabaseSession>(real: T): T =>
    new Proxy(real, {
      get(target, prop) {
        if (prop === 'prepare') return (sql: string) => statement(target.prepare(sql), sql);
        if (prop === 'batch') {
          return (statements: D1PreparedStatement[]) => {
            record(statements.map((s) => sqlOf.get(s) ?? '?'));
            return target.batch(statements.map((s) => ownOf.get(s) ?? s));
          };
        }
        if (prop === 'withSession') {
          return (arg?: string) => {
            cost.sessions.push(arg === 'first-primary' || arg === 'first-unconstrained' || arg === undefined ? String(arg) : 'bookmark');
            return database((target as D1Database).withSession(arg));
          };
        }
        return passThrough(target, prop);
      },
    });
  const KV = new Proxy(env.KV, {
    get(target, prop) {
      const member = passThrough(target, prop);
      if (typeof member !== 'function') return member;
      const method = member as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        if (prop === 'get' || prop === 'getWithMetadata' || prop === 'list') cost.kvReads++;
        if (prop === 'put' || prop === 'delete') cost.kvWrites++;
        return method(...args);
      };
    },
  });
  const CALL_LIMITER: RateLimit = {
    limit: (options) => {
      cost.limiterCalls++;
      return env.CALL_LIMITER.limit(options);
    },
  };
  const metered = meteredD1(env.DB, (meta) => {
    cost.rowsRead += meta?.rows_read ?? 0;
    cost.rowsWritten += meta?.rows_written ?? 0;
  });
  const bindings = { ...env, DB: database(metered), KV, CALL_LIMITER } as unknown as Env;

  return {
    /** Sends one request and answers it with what it cost. */
    async fetch(url: string, init: RequestInit): Promise<Response> {
      const ctx = createExecutionContext();
      const res = await app.fetch(new Request(url, init), bindings, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    },
    /**
     * What a request costs once warm: `send` (given this worker's fetch) runs twice, the first to warm
     * what an isolate keeps (a product's price, the shop's counts), and each must succeed.
     */
    async warmCost(send: (fetch: (url: string, init: RequestInit) => Promise<Response>) => Promise<{ status: number; body: unknown }>) {
      const through = (url: string, init: RequestInit) => this.fetch(url, init);
      const warm = await send(through);
      expect(warm.status, JSON.stringify(warm.body)).toBeLessThan(300);
      this.take();
      const res = await send(through);
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      return this.take();
    },
    /** What the requests since the last call cost, and a fresh count from here. */
    take(): RequestCost {
      const taken = cost;
      cost = emptyCost();
      return taken;
    },
  };
}

const emptyCost = (): RequestCost => ({
  sessions: [],
  roundTrips: [],
  writes: [],
  kvReads: 0,
  kvWrites: 0,
  limiterCalls: 0,
  rowsRead: 0,
  rowsWritten: 0,
});
