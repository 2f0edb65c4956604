// Who is calling: the bearer token's live session and the user's current row.
import { and, eq, gt, notExists, or, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Context, Next } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../context';
import { plainBatch, type RunBatch } from '../db/client';
import { rateLimits, users, type Role } from '../db/schema';
import { apiTokenMayCall, findApiTokenCaller, mayHoldApiTokens, touchApiToken } from '../domain/api-tokens';
import { countStatement, isOver, rateLimited, RULES, windowStartOf } from '../domain/throttle';
import { AppError } from '../lib/errors';
import { failedConstraint } from '../lib/db-errors';
import { endSession, readSession, touchSession, type SessionRecord, type SessionUser } from '../lib/sessions';
import { inBackground } from '../lib/request';
import { isApiTokenValue } from '../schemas/api-tokens';

const ROLE_RANK: Record<Role, number> = { user: 0, reseller: 1, owner: 2 };

export function bearerToken(header: string | undefined): string | null {
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  return match ? match[1] : null;
}

const sessionExpired = () => new AppError('UNAUTHORIZED', 'Your session has expired. Please sign in again.');

export const requireAuth = createMiddleware<AppEnv>(async (c, next) => {
  // Several sub-apps share /api/users; the first one's check covers the request.
  if (c.get('session') || c.get('apiToken')) return next();
  const pending = c.get('batchAuth');
  if (pending) {
    await pending.check();
    return next();
  }
  const token = bearerToken(c.req.header('authorization'));
  if (!token) throw new AppError('UNAUTHORIZED', 'Please sign in to continue');
  if (isApiTokenValue(token)) return authenticateApiToken(c, token, next);
  const session = await readSession(c.env, token);
  if (!session) throw sessionExpired();
  await new BatchAuth(c, session).check();
  await next();
});

/**
 * requireAuth for a route whose D1 work is one batch (a purchase, a page of My Keys): the session's
 * D1 checks open that batch instead of taking a round trip of their own. The route runs its batch
 * with `batchRunner(c)` and takes the caller's id from `callerId(c)`. A guard statement fails the
 * batch whole when the user is gone or deactivated or the session is over its call limit; the
 * ordinary checks then give the answer (401, 429). A call that ends without that batch committing
 * (invalid input, a replay, a refusal) gets the ordinary checks before its answer goes out, so
 * every call is counted and checked exactly once, as with requireAuth.
 */
export const requireAuthInBatch = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearerToken(c.req.header('authorization'));
  if (c.get('session') || c.get('apiToken') || !token || isApiTokenValue(token)) return requireAuth(c, next);
  const session = await readSession(c.env, token);
  if (!session) throw sessionExpired();
  const auth = new BatchAuth(c, session);
  c.set('batchAuth', auth);
  await next();
  // Thrown here, the refusal replaces whatever the route answered.
  await auth.check();
});

/** The request's way to run its one D1 batch: with the session's checks in front when they wait for it. */
export function batchRunner(c: Context<AppEnv>): RunBatch {
  const pending = c.var.batchAuth;
  return pending ? (items) => pending.run(items) : plainBatch(c.var.db);
}

/** The signed-in caller's id, known from the session even before its checks have run. */
export const callerId = (c: Context<AppEnv>) => c.var.batchAuth?.userId ?? c.var.user.id;

/** The session's D1 checks for one call: counted in its window, and its user's current row. */
export class BatchAuth {
  private settled = false;
  private readonly now = Date.now();
  private readonly bucket: string;
  private readonly windowStart: number;

  constructor(
    private readonly c: Context<AppEnv>,
    private readonly session: SessionRecord,
  ) {
    this.bucket = `session:${session.id}`;
    this.windowStart = windowStartOf(RULES.session, this.now);
  }

  get userId() {
    return this.session.userId;
  }

  private countAndRead() {
    const db = this.c.var.db;
    return [
      countStatement(db, this.bucket, this.windowStart),
      db
        .select({ id: users.id, username: users.username, email: users.email, role: users.role, isActive: users.isActive })
        .from(users)
        .where(eq(users.id, this.session.userId)),
    ] as const;
  }

  /** In a round trip of its own; throws 401 or 429. Does nothing once the call was checked. */
  async check(): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    const [[counted], [user]] = await this.c.var.db.batch(this.countAndRead());
    await this.admit(counted.count, user);
  }

  /**
   * The statements that open the route's batch: the count, a guard that fails the batch when the
   * call may not go ahead, and the user's row.
   */
  private leadingStatements(): [BatchItem<'sqlite'>, BatchItem<'sqlite'>, BatchItem<'sqlite'>] {
    const [count, user] = this.countAndRead();
    const db = this.c.var.db;
    // The counter row exists (the count just made it): blanking its bucket breaks NOT NULL, and so
    // the batch, exactly when the user is not an active account or the count is over the limit.
    const activeUser = db.select({ id: users.id }).from(users).where(and(eq(users.id, this.session.userId), eq(users.isActive, true)));
    const guard = db
      .update(rateLimits)
      .set({ bucket: sql`NULL` })
      .where(and(eq(rateLimits.bucket, this.bucket), eq(rateLimits.windowStart, this.windowStart), or(gt(rateLimits.count, RULES.session.limit), notExists(activeUser))));
    return [count, guard, user];
  }

  /**
   * Runs the route's batch with the session's checks in front and gives the route's results, as
   * `db.batch` would. Refused by the guard, it answers what the ordinary checks answer (401, 429);
   * should those pass by then (a new window began), the batch runs on its own.
   */
  async run(items: BatchItem<'sqlite'>[]): Promise<unknown[]> {
    const alone = plainBatch(this.c.var.db);
    if (this.settled) return alone(items);
    const lead = this.leadingStatements();
    let results: unknown[];
    try {
      results = await alone([...lead, ...items]);
    } catch (err) {
      if (!failedConstraint(err, 'NOT NULL', 'rate_limits.bucket')) throw err;
      await this.check();
      return alone(items);
    }
    this.settled = true;
    const [[counted], , [user]] = results as [[{ count: number }], unknown, [SessionUser & { isActive: boolean }]];
    await this.admit(counted.count, user);
    return results.slice(lead.length);
  }

  private async admit(count: number, user: (SessionUser & { isActive: boolean }) | undefined) {
    const { c, session, now } = this;
    if (!user || !user.isActive) {
      await endSession(c.env.KV, session.userId, session.id);
      throw user ? new AppError('UNAUTHORIZED', 'This account has been deactivated') : sessionExpired();
    }
    if (isOver({ count, rule: RULES.session })) {
      throw rateLimited(RULES.session, now, 'Too many requests from this session.');
    }
    c.set('session', session);
    c.set('user', { id: user.id, username: user.username, email: user.email, role: user.role });
    await inBackground(c, touchSession(c.env.KV, session));
  }
}

/**
 * The API-token path, apart from the session path above: the token and its owner in one D1 round
 * trip (with the per-token call count), the lower of the two roles, read-only tokens limited to
 * GET, and no access to account security.
 */
async function authenticateApiToken(c: Context<AppEnv>, token: string, next: Next) {
  const now = Date.now();
  const caller = await findApiTokenCaller(c.var.db, token, now);
  if (!caller) throw new AppError('UNAUTHORIZED', 'This API token is not valid or has been revoked');
  if (!caller.isActive) throw new AppError('UNAUTHORIZED', 'This account has been deactivated');
  if (!mayHoldApiTokens(caller.accountRole)) throw new AppError('FORBIDDEN', 'API tokens are available to owners and resellers only');
  if (isOver({ count: caller.callCount, rule: RULES.session })) {
    throw rateLimited(RULES.session, now, 'Too many requests with this API token.');
  }
  if (!apiTokenMayCall(c.req.path)) {
    throw new AppError('FORBIDDEN', 'API tokens cannot manage account security. Sign in to KeyPanel to do this.');
  }
  if (caller.grant.readOnly && c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    throw new AppError('FORBIDDEN', 'This API token is read-only');
  }
  c.set('apiToken', caller.grant);
  c.set('user', caller.user);
  await inBackground(c, touchApiToken(c.var.db, caller.grant, now));
  await next();
}

/** Allows the given role and every role above it (user < reseller < owner). */
export function requireRole(minimum: Role) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (ROLE_RANK[c.var.user.role] < ROLE_RANK[minimum]) {
      throw new AppError('FORBIDDEN', 'You do not have permission to do this');
    }
    await next();
  });
}

export const isAtLeast = (role: Role, minimum: Role) => ROLE_RANK[role] >= ROLE_RANK[minimum];
