// Each API request runs on one D1 session (D1's Sessions API). A read starts on any replica that is
// at least as new as the caller's bookmark (or on any replica at all without one); a write starts on
// the primary. Every answer carries the session's latest bookmark in `x-d1-bookmark`, and the web
// app and the CLI send the newest one they hold back, so a customer always reads their own writes,
// whichever replica answers.
//
// A signed-in write also carries its caller's guard: every round trip its session makes opens with
// one statement that aborts the whole batch unless the caller is still an active account with the
// role the route needs (migration 0009). The session check itself is a KV read (middleware/auth.ts),
// so this is what keeps money and privileges exact when a deactivation or a demotion has not yet
// reached every Cloudflare location: no statement of the write commits without the guard passing.
import { isAtLeast, type Role } from './schema';
import { AppError } from '../lib/errors';
import { passThrough } from '../lib/proxy';

export const BOOKMARK_HEADER = 'x-d1-bookmark';

/** The form D1 gives its bookmarks: four hex groups (a position in the database's history). */
const BOOKMARK_FORM = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/i;

/** The caller's bookmark from the request header: null when none was sent, 400 when it is not one. */
export function parseBookmark(header: string | undefined): string | null {
  if (header === undefined || header === '') return null;
  if (!BOOKMARK_FORM.test(header)) {
    throw new AppError(
      'VALIDATION_ERROR',
      `The ${BOOKMARK_HEADER} header must be a bookmark from an earlier answer of this API, or be left out`,
    );
  }
  return header;
}

/** A read may start anywhere at least as new as the caller's bookmark; a write starts on the primary. */
export function openRequestD1(d1: D1Database, access: { write: boolean; bookmark: string | null }): RequestD1 {
  const session = access.write ? d1.withSession('first-primary') : d1.withSession(access.bookmark ?? 'first-unconstrained');
  return new RequestD1(d1, session, access.write);
}

/**
 * The request's D1: its session, as the client of the request's drizzle instance (`c.var.db`). Once
 * the caller is known, a write request's statements carry the caller's guard (see the top of this
 * file): a batch gets it as its first statement, and a single statement becomes a batch of the guard
 * and itself (still one round trip). The guard's own result is left out of what the code sees.
 */
export class RequestD1 {
  private guardedBy: { userId: string; minimum: Role } | null = null;
  /** D1 is handed its own statements, never the wrappers around them. */
  private readonly unwrapped = new WeakMap<D1PreparedStatement, D1PreparedStatement>();

  constructor(
    /** The binding the session was opened on. */
    readonly database: D1Database,
    private readonly session: D1DatabaseSession,
    readonly write: boolean,
  ) {}

  /** Guards the request's writes with this caller (a read request has nothing to guard). */
  guard(userId: string, minimum: Role) {
    if (!this.write) return;
    const current = this.guardedBy?.userId === userId ? this.guardedBy.minimum : 'user';
    this.guardedBy = { userId, minimum: isAtLeast(minimum, current) ? minimum : current };
  }

  getBookmark(): string | null {
    return this.session.getBookmark();
  }

  prepare(sql: string): D1PreparedStatement {
    const statement = this.session.prepare(sql);
    return this.guardedBy ? this.wrap(statement) : statement;
  }

  async batch<T>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    const own = statements.map((s) => this.unwrapped.get(s) ?? s);
    if (!this.guardedBy) return this.session.batch<T>(own);
    const { userId, minimum } = this.guardedBy;
    try {
      const [, ...results] = await this.session.batch<T>([this.session.prepare(GUARD_SQL).bind(userId, minimum), ...own]);
      return results;
    } catch (err) {
      throw guardRefusal(err) ?? err;
    }
  }

  /** The statement, run through `batch` whichever way it is run. */
  private wrap(statement: D1PreparedStatement): D1PreparedStatement {
    const alone = async () => (await this.batch<Record<string, unknown>>([statement]))[0];
    const wrapper = new Proxy(statement, {
      get: (target, prop) => {
        switch (prop) {
          case 'bind':
            return (...values: unknown[]) => this.wrap(target.bind(...values));
          case 'run':
          case 'all':
            return alone;
          case 'first':
            return async (column?: string) => {
              const row = (await alone()).results[0] ?? null;
              return column === undefined || row === null ? row : row[column];
            };
          case 'raw':
            // As drizzle reads a batch's rows: each row's values in column order.
            return async () => (await alone()).results.map((row) => Object.values(row));
          default:
            return passThrough(target, prop);
        }
      },
    });
    this.unwrapped.set(wrapper, statement);
    return wrapper;
  }
}

/** The binding behind a request's D1 (or the binding itself), for work that outlives the request. */
export const bindingOf = (d1: D1Database): D1Database => (d1 as unknown as Partial<RequestD1>).database ?? d1;

/** Opens the guard's view (migration 0009): inserting into it writes nothing, and its trigger aborts the batch. */
const GUARD_SQL = 'INSERT INTO caller_guard (user_id, min_role) VALUES (?1, ?2)';

/** The caller's guard refused the write: the account is gone or deactivated, or its role no longer suffices. */
function guardRefusal(err: unknown): AppError | null {
  const text = String((err as Error)?.message ?? err);
  if (text.includes('CALLER_INACTIVE')) return new AppError('UNAUTHORIZED', 'This account has been deactivated');
  if (text.includes('CALLER_ROLE')) return new AppError('FORBIDDEN', 'You do not have permission to do this');
  return null;
}
