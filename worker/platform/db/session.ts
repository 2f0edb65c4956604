// Each API request runs on one D1 session (D1's Sessions API). A read starts on any replica that is
// at least as new as the caller's bookmark (or on any replica at all without one); a write starts on
// the primary. Every answer carries the session's latest bookmark in `x-d1-bookmark`, and the web
// app and the CLI send the newest one they hold back, so a customer always reads their own writes,
// whichever replica answers.
//
// Identity rides in the same round trips. Once a signed-in caller is known (modules/accounts/identify.ts, from
// the token alone), every round trip the request makes opens with one statement that checks, in D1,
// that the account is active, that the session or API token is live under the account's current
// credential epoch, and that the account still has the role the request acts with. A write's check
// is the caller guard (migration 0016): its trigger aborts the whole batch, so nothing commits. A
// read's is the same check as a SELECT, read before any of the batch's results are used. So no KV
// read and no extra round trip stand before a signed-in request's own work.
//
// A write leaves out what it need not run (issue 48). Each webhook outbox statement writes its events
// only when an enabled endpoint subscribes to their type, and a shop without webhooks pays a statement
// for nothing in every write. So a guarded write leaves out the outbox statements of the types that no
// endpoint subscribed to when this isolate last looked (the webhook-subscriptions cache, refreshed by a
// statement of a write batch every minute), and its guard names those types: if an endpoint subscribes
// to one of them by the time the batch runs, the guard aborts the batch (WEBHOOK_SUBSCRIBERS_CHANGED),
// nothing commits, and the batch runs again at once with every outbox statement. No event is lost, and
// none is late: a committed write has written every event it owes, as before.
//
// A write that committed answers as one (issue 42): once a batch of the request has written under
// the check, the reads that follow (reading back what it wrote, for its answer) are checked no more,
// so a caller demoted or signed out between the commit and that read is not answered 401 or 403 for
// a change that is in. Every batch that writes still carries the guard.
import { AppError } from '../errors';
import { passThrough } from '../proxy';
import { type Role } from '../vocabulary';
import type { Later } from '../request';
import type { WebhookQueue } from '../webhook-message';
import type { MailQueue } from '../mail-message';
import { isolateCache } from '../isolate-cache';

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

/**
 * What a request's committed writes may hand on after its answer: work that runs past the response
 * (the request's waitUntil), and the webhook queue their events go to (webhooks/outbox.ts).
 */
export type AfterCommit = { later: Later; webhookQueue?: WebhookQueue; mailQueue?: MailQueue };

/**
 * A read may start anywhere at least as new as the caller's bookmark; a write starts on the primary,
 * and so does a read declared `primary` (one whose answer must see every committed write).
 */
export function openRequestD1(
  d1: D1Database,
  access: { write: boolean; primary?: boolean; bookmark: string | null; afterCommit?: AfterCommit },
): RequestD1 {
  const session =
    access.write || access.primary ? d1.withSession('first-primary') : d1.withSession(access.bookmark ?? 'first-unconstrained');
  return new RequestD1(d1, session, access.write, access.afterCommit);
}

/** Who a signed-in request acts as, checked by every round trip it makes (see the top of this file). */
export type CallerCheck = {
  kind: 'session' | 'apiToken';
  /** The session's or the API token's id. */
  credentialId: string;
  userId: string;
  /** The account's role as the request knows it: the guard refuses the request if it changed since. */
  role: Role;
  /** A session idle for longer than this is over (the owner's setting). */
  idleMs: number;
  now: number;
};

/**
 * The request's D1: its session, as the client of the request's drizzle instance (`c.var.db`). Once
 * the caller is known, every round trip carries the caller's check as its first statement (a single
 * statement becomes a batch of the check and itself: still one round trip). The check's own result
 * is left out of what the code sees.
 */
/** What a request's database hands on after a commit (none for a plain binding: the cron, a script, a test). */
export const afterCommitOf = (d1: unknown): AfterCommit | undefined => (d1 instanceof RequestD1 ? d1.afterCommit : undefined);

export class RequestD1 {
  private caller: CallerCheck | null = null;
  /** Whether a round trip has confirmed the caller since the caller was set. */
  private confirmed = false;
  /** Whether a batch of this request wrote under the caller's check: its read-backs are not refused. */
  private committed = false;
  /** D1 is handed its own statements, never the wrappers around them. */
  private readonly unwrapped = new WeakMap<D1PreparedStatement, D1PreparedStatement>();
  /** The statements that only read (a SELECT), bound or not. */
  private readonly reads = new WeakSet<D1PreparedStatement>();

  constructor(
    /** The binding the session was opened on. */
    readonly database: D1Database,
    private readonly session: D1DatabaseSession,
    readonly write: boolean,
    /** What the request's committed writes hand on after the answer (none outside a request). */
    readonly afterCommit?: AfterCommit,
  ) {}

  /** Checks this caller in every round trip from now on. */
  checkCaller(caller: CallerCheck) {
    this.caller = caller;
    this.confirmed = false;
    this.committed = false;
  }

  /**
   * Confirms the caller when no round trip has yet (a handler that asked D1 nothing): one round trip
   * of the check alone.
   */
  async confirmCaller(): Promise<void> {
    if (this.caller && !this.confirmed) await this.batch([]);
  }

  getBookmark(): string | null {
    return this.session.getBookmark();
  }

  prepare(sql: string): D1PreparedStatement {
    const statement = this.session.prepare(sql);
    if (READ_ONLY.test(sql)) this.reads.add(statement);
    return this.caller ? this.wrap(statement) : statement;
  }

  async batch<T>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    const own = statements.map((s) => this.unwrapped.get(s) ?? s);
    const caller = this.caller;
    // A read-back after the request's write committed is not refused (see the top of this file).
    if (!caller || (this.committed && own.every((s) => this.reads.has(s)))) return this.session.batch<T>(own);
    // A write's outbox statements for types nobody subscribes to are left out, and the guard asserts it.
    const types = this.write ? statements.map((s) => EVENT_TYPES.get(s)) : [];
    const hasOutbox = types.some((type) => type !== undefined);
    const subscribed = hasOutbox ? subscriptions.get(this.database) : undefined;
    const left = types.map((type) => type !== undefined && subscribed !== undefined && !subscribed.has(type));
    const quiet = [...new Set(types.filter((_, i) => left[i]))];
    const refresh = hasOutbox && subscribed === undefined;
    const checked = [caller.kind, caller.credentialId, caller.userId, caller.role, caller.now, caller.idleMs];
    const check = this.write
      ? this.session.prepare(GUARD_SQL).bind(...checked, quiet.length ? JSON.stringify(quiet) : null)
      : this.session.prepare(CALLER_CHECK_SQL).bind(...checked);
    const sent = own.filter((_, i) => !left[i]);
    let head: D1Result<T>;
    let results: D1Result<T>[];
    try {
      [head, ...results] = await this.session.batch<T>([check, ...sent, ...(refresh ? [this.session.prepare(SUBSCRIBED_TYPES_SQL)] : [])]);
    } catch (err) {
      const message = String((err as Error)?.message ?? err);
      if (quiet.length && message.includes(SUBSCRIBERS_CHANGED)) {
        // Nothing committed: run it again with every outbox statement, and look again.
        subscriptions.delete(this.database);
        return this.batch(statements);
      }
      throw callerRefusal(message, caller.kind) ?? err;
    }
    if (!this.write) {
      const state = (head.results[0] as { caller?: string } | undefined)?.caller;
      if (state !== 'ok') throw callerRefusal(String(state), caller.kind) ?? new Error(`Unexpected caller check: ${String(state)}`);
    }
    if (refresh) {
      const rows = results.pop()!.results as Array<{ type: string }>;
      subscriptions.set(this.database, new Set(rows.map((row) => row.type)));
    }
    // Each statement left out answers as one that wrote nothing.
    if (quiet.length) results = left.map((l) => (l ? nothingWritten<T>() : results.shift()!));
    this.confirmed = true;
    if (this.write && results.some(wrote)) this.committed = true;
    return results;
  }

  /** The statement, run through `batch` whichever way it is run. */
  private wrap(statement: D1PreparedStatement): D1PreparedStatement {
    const alone = async () => (await this.batch<Record<string, unknown>>([statement]))[0];
    const wrapper = new Proxy(statement, {
      get: (target, prop) => {
        switch (prop) {
          case 'bind':
            return (...values: unknown[]) => {
              const bound = target.bind(...values);
              if (this.reads.has(target)) this.reads.add(bound);
              return this.wrap(bound);
            };
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

/** The event type of each bound outbox statement (SqlStatement.eventType), by the statement handed to `batch`. */
const EVENT_TYPES = new WeakMap<D1PreparedStatement, string>();

/** Marks a bound statement as the outbox of `type`: a guarded write may leave it out (see the top of this file). */
export function writesEvents(statement: D1PreparedStatement, type: string): void {
  EVENT_TYPES.set(statement, type);
}

/** The event types some enabled endpoint subscribes to, as this isolate last read them, by D1 binding. */
const subscriptions = isolateCache<D1Database, ReadonlySet<string>>('webhook-subscriptions');

/**
 * Every enabled webhook endpoint's event types, one row each (`s.value`): what "subscribes" means for
 * the outbox statements (modules/webhooks/outbox.ts) and for the copy below, as for the guard (0035).
 */
export const ENABLED_SUBSCRIPTIONS_SQL = 'webhook_endpoints e, json_each(e.events) s WHERE e.enabled = 1';

/** Read in a write batch whenever the isolate's copy is missing or old. */
const SUBSCRIBED_TYPES_SQL = `SELECT DISTINCT s.value AS type FROM ${ENABLED_SUBSCRIPTIONS_SQL}`;

/** The guard's refusal when an endpoint subscribes to a type the batch left out (migration 0035). */
const SUBSCRIBERS_CHANGED = 'WEBHOOK_SUBSCRIBERS_CHANGED';

const nothingWritten = <T>(): D1Result<T> => ({
  success: true,
  results: [],
  meta: { duration: 0, size_after: 0, rows_read: 0, rows_written: 0, last_row_id: 0, changed_db: false, changes: 0 },
});

/** A statement that only reads: a plain SELECT (anything else, a WITH among them, counts as a write). */
const READ_ONLY = /^\s*select\b/i;

/**
 * Whether a statement of a committed batch wrote (D1 counts the rows its triggers wrote too). Not
 * `changes`: SQLite's count of the last write, which a SELECT after a write would carry over.
 */
const wrote = (result: D1Result<unknown>) => result.meta?.changed_db === true || (result.meta?.rows_written ?? 0) > 0;

/** The binding behind a request's D1 (or the binding itself), for work that outlives the request. */
export const bindingOf = (d1: D1Database): D1Database => (d1 as unknown as Partial<RequestD1>).database ?? d1;

/**
 * A write's check (migrations 0016 and 0035): inserting into the view writes nothing, and its trigger
 * aborts the batch. ?7: the event types whose outbox statements the batch left out (JSON), or NULL.
 */
export const GUARD_SQL =
  'INSERT INTO caller_guard (kind, credential_id, user_id, role, now, idle_ms, quiet_events) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)';

/** A read's check: the guard's three conditions, in the guard's order, as a SELECT a replica can answer. */
export const CALLER_CHECK_SQL = `SELECT CASE
  WHEN NOT EXISTS (SELECT 1 FROM users WHERE id = ?3 AND is_active = 1) THEN 'CALLER_INACTIVE'
  WHEN NOT EXISTS (SELECT 1 FROM users u WHERE u.id = ?3 AND (
    (?1 = 'session' AND EXISTS (SELECT 1 FROM sessions s WHERE s.id = ?2 AND s.user_id = u.id
      AND s.credential_epoch = u.credential_epoch AND s.expires_at > ?5 AND s.last_active > ?5 - ?6))
    OR (?1 = 'apiToken' AND EXISTS (SELECT 1 FROM api_tokens t WHERE t.id = ?2 AND t.user_id = u.id
      AND t.credential_epoch = u.credential_epoch)))) THEN 'CALLER_ENDED'
  WHEN NOT EXISTS (SELECT 1 FROM users WHERE id = ?3 AND role = ?4) THEN 'CALLER_ROLE'
  ELSE 'ok' END AS caller`;

export const sessionEnded = () => new AppError('UNAUTHORIZED', 'Your session has expired. Please sign in again.');
export const apiTokenEnded = () => new AppError('UNAUTHORIZED', 'This API token is not valid or has been revoked');
export const accountDeactivated = () => new AppError('UNAUTHORIZED', 'This account has been deactivated');

/** The caller check refused the request: the account is gone or deactivated, the credential ended, or the role changed. */
function callerRefusal(text: string, kind: CallerCheck['kind']): AppError | null {
  if (text.includes('CALLER_INACTIVE')) return accountDeactivated();
  if (text.includes('CALLER_ENDED')) return kind === 'session' ? sessionEnded() : apiTokenEnded();
  if (text.includes('CALLER_ROLE')) return new AppError('FORBIDDEN', 'You do not have permission to do this');
  return null;
}
