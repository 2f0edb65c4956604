// Who is calling: the bearer token's live session and the user's current row.
import type { Context, Next } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../context';
import { plainBatch, runBatch, SqlStatement, type RunBatch, type Statement } from '../db/client';
import type { Role } from '../db/schema';
import { apiTokenMayCall, findApiTokenCaller, mayHoldApiTokens, touchApiToken } from '../domain/api-tokens';
import { isOver, rateLimited, RULES, windowStartOf } from '../domain/throttle';
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
  const auth = await batchAuthFor(c);
  if (!auth) return requireAuth(c, next);
  c.set('batchAuth', auth);
  await next();
  // Thrown here, the refusal replaces whatever the route answered.
  await auth.check();
});

/**
 * requireAuth and requireRole(minimum) for a route whose statements depend on the caller's role (the
 * admin key list, the Overview). When this isolate has admitted the user before with a role that
 * suffices, the route is built for that role and the session's checks ride in its batch, their
 * guard also requiring the role to be unchanged; the route gets its viewer and runner from
 * `asViewer`. Otherwise (first call, or a role that does not suffice) the checks come first, as
 * with requireAuth.
 */
export function requireRoleInBatch(minimum: Role) {
  const byRole = requireRole(minimum);
  return createMiddleware<AppEnv>(async (c, next) => {
    const auth = await batchAuthFor(c);
    const role = auth && knownRoles.get(auth.userId);
    if (!auth || !role || !isAtLeast(role, minimum)) {
      if (auth) await auth.check();
      else await requireAuth(c, async () => {});
      return byRole(c, next);
    }
    auth.assume(role, minimum);
    c.set('batchAuth', auth);
    await next();
    await auth.check();
  });
}

/** The session's checks, deferred to the route's batch; null when the call is not a session's (the ordinary path). */
async function batchAuthFor(c: Context<AppEnv>): Promise<BatchAuth | null> {
  const token = bearerToken(c.req.header('authorization'));
  if (c.get('session') || c.get('apiToken') || !token || isApiTokenValue(token)) return null;
  const session = await readSession(c.env, token);
  if (!session) throw sessionExpired();
  return new BatchAuth(c, session);
}

/** Who the route serves, and how it runs its batch (see requireRoleInBatch). */
export type Viewer = { id: string; role: Role };

/**
 * Runs the route's work as the caller: with the remembered role and the checks in its batch, or,
 * should the batch find the role changed, again with the role just read (and refused if it no longer
 * suffices).
 */
export async function asViewer<T>(c: Context<AppEnv>, work: (viewer: Viewer, run: RunBatch) => Promise<T>): Promise<T> {
  const auth = c.var.batchAuth;
  const assumed = auth?.assumed;
  if (auth && assumed) {
    try {
      return await work({ id: auth.userId, role: assumed.role }, (items) => auth.run(items));
    } catch (err) {
      if (!(err instanceof RoleChanged)) throw err;
      if (!isAtLeast(c.var.user.role, assumed.minimum)) throw forbidden();
    }
  }
  return work({ id: c.var.user.id, role: c.var.user.role }, plainBatch(c.var.db));
}

/** The batch's guard found the user's role changed since this isolate last saw it: the route's statements were built for the old one. */
class RoleChanged extends Error {}

/**
 * The role each user last had when this isolate admitted them: only a hint for building a route's
 * statements, which the batch's guard checks against the user's row.
 */
const knownRoles = new Map<string, Role>();
const KNOWN_ROLES_MAX = 10_000;

function rememberRole(userId: string, role: Role) {
  if (knownRoles.size >= KNOWN_ROLES_MAX && !knownRoles.has(userId)) knownRoles.clear();
  knownRoles.set(userId, role);
}

/** The request's way to run its one D1 batch: with the session's checks in front when they wait for it. */
export function batchRunner(c: Context<AppEnv>): RunBatch {
  const pending = c.var.batchAuth;
  return pending ? (items) => pending.run(items) : plainBatch(c.var.db);
}

/** The signed-in caller's id, known from the session even before its checks have run. */
export const callerId = (c: Context<AppEnv>) => c.var.batchAuth?.userId ?? c.var.user.id;

/**
 * One statement counts a session's call in its window and answers the count with the user's current
 * row (as JSON; null when the user is gone). Guarded, it also fails when the call may not go ahead,
 * breaking NOT NULL on the counter's count and so the whole batch it opens: when the user is not an
 * active account (with the role the route assumed, ?5), or the count goes over the limit (?4). The
 * count, not the bucket, takes the NULL: it is in no index, so the guard costs no index write. The
 * user is checked once, in the row offered for insert: its count (excluded.count) is 1, or NULL when
 * the call may not go ahead, and a window already counted adds it, so NULL stays NULL.
 * ?1 bucket, ?2 window start, ?3 user id; guarded, also ?4 the limit and ?5 the assumed role or NULL.
 */
const MAY_GO_AHEAD = `EXISTS (SELECT 1 FROM users u WHERE u.id = ?3 AND u.is_active = 1 AND (?5 IS NULL OR u.role = ?5))`;
const CALL_USER = `(SELECT json_object('id', u.id, 'username', u.username, 'email', u.email, 'role', u.role, 'isActive', u.is_active) FROM users u WHERE u.id = ?3) AS "user"`;
const COUNT_CALL = `INSERT INTO rate_limits (bucket, window_start, count) VALUES (?1, ?2, 1)
  ON CONFLICT (bucket, window_start) DO UPDATE SET count = count + 1
  RETURNING count, ${CALL_USER}`;
const COUNT_CALL_GUARDED = `INSERT INTO rate_limits (bucket, window_start, count) VALUES (?1, ?2, CASE WHEN ${MAY_GO_AHEAD} THEN 1 END)
  ON CONFLICT (bucket, window_start) DO UPDATE SET count = CASE WHEN count + excluded.count <= ?4 THEN count + excluded.count END
  RETURNING count, ${CALL_USER}`;

/** What counting a session's call answers: the count, and the user's row as JSON (null when the user is gone). */
type CountedCall = { count: number; user: string | null }[];

/** The session's D1 checks for one call: counted in its window, and its user's current row. */
export class BatchAuth {
  private settled = false;
  /** The role the route's statements were built for (requireRoleInBatch), and the least it needs. */
  assumed: { role: Role; minimum: Role } | null = null;
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

  assume(role: Role, minimum: Role) {
    this.assumed = { role, minimum };
  }

  /** The statement that counts this call and reads its user, guarded or not (see COUNT_CALL). */
  private countedCall(guarded: boolean) {
    const { session, bucket, windowStart, assumed } = this;
    return guarded
      ? new SqlStatement(COUNT_CALL_GUARDED, [bucket, windowStart, session.userId, RULES.session.limit, assumed?.role ?? null])
      : new SqlStatement(COUNT_CALL, [bucket, windowStart, session.userId]);
  }

  /** In a round trip of its own; throws 401 or 429. Does nothing once the call was checked. */
  async check(): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    const [counted] = await runBatch(this.c.var.db, [this.countedCall(false)]);
    await this.admit(counted as CountedCall);
  }

  /**
   * Runs the route's batch with the session's checks in front and gives the route's results, as
   * `db.batch` would. Refused by the guard, it answers what the ordinary checks answer (401, 429);
   * should those pass by then (a new window began), the batch runs on its own.
   */
  async run(items: Statement[]): Promise<unknown[]> {
    const alone = plainBatch(this.c.var.db);
    if (this.settled) return alone(items);
    let results: unknown[];
    try {
      results = await alone([this.countedCall(true), ...items]);
    } catch (err) {
      if (!failedConstraint(err, 'NOT NULL', 'rate_limits.count')) throw err;
      await this.check();
      if (this.assumed && this.c.var.user.role !== this.assumed.role) throw new RoleChanged();
      return alone(items);
    }
    this.settled = true;
    await this.admit(results[0] as CountedCall);
    return results.slice(1);
  }

  private async admit([{ count, user: userJson }]: CountedCall) {
    const { c, session, now } = this;
    const user = userJson === null ? undefined : (JSON.parse(userJson) as SessionUser & { isActive: 0 | 1 });
    if (!user || !user.isActive) {
      await endSession(c.env.KV, session.userId, session.id);
      throw user ? new AppError('UNAUTHORIZED', 'This account has been deactivated') : sessionExpired();
    }
    if (isOver({ count, rule: RULES.session })) {
      throw rateLimited(RULES.session, now, 'Too many requests from this session.');
    }
    c.set('session', session);
    c.set('user', { id: user.id, username: user.username, email: user.email, role: user.role });
    rememberRole(user.id, user.role);
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

const forbidden = () => new AppError('FORBIDDEN', 'You do not have permission to do this');

/** Allows the given role and every role above it (user < reseller < owner). */
export function requireRole(minimum: Role) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!isAtLeast(c.var.user.role, minimum)) throw forbidden();
    await next();
  });
}

export const isAtLeast = (role: Role, minimum: Role) => ROLE_RANK[role] >= ROLE_RANK[minimum];
