// The Worker run with counting bindings: every D1 round trip (a batch, or one statement run on its
// own), the statements that write, the D1 sessions opened, the KV reads and writes and the call
// limiter's calls of one request, including what it leaves to run after its answer (waitUntil).
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
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
};

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
  const bindings = { ...env, DB: database(env.DB), KV, CALL_LIMITER } as unknown as Env;

  return {
    /** Sends one request and answers it with what it cost. */
    async fetch(url: string, init: RequestInit): Promise<Response> {
      const ctx = createExecutionContext();
      const res = await app.fetch(new Request(url, init), bindings, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    },
    /** What the requests since the last call cost, and a fresh count from here. */
    take(): RequestCost {
      const taken = cost;
      cost = emptyCost();
      return taken;
    },
  };
}

const emptyCost = (): RequestCost => ({ sessions: [], roundTrips: [], writes: [], kvReads: 0, kvWrites: 0, limiterCalls: 0 });
