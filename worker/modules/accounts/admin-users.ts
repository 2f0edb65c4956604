// User management by the owner. Each write is one D1 batch holding the
// change, its ledger row when money moves, and its audit row, all under the same guard.
import { and, count, desc, eq, ne, or, sql } from 'drizzle-orm';
import type { BatchItems, DB } from '../../platform/db/client';
import { runtimeLimit } from '../../platform/db/compiled';
import { ledger, shopCounts, users, type Actor } from '../../platform/db/schema';
import { AppError, notFound } from '../../platform/errors';
import { startsWith } from '../../platform/sql-prefix';
import { newId } from '../../platform/ids';
import type { MailEnv } from '../../platform/mail';
import { queueMails, type QueuedMail } from '../mail';
import type { Later } from '../../platform/request';
import { sendVerificationIfPossible } from './email-verification';
import { endCredentialsStatements } from './sessions';
import { toCents, type AddFundsInput, type ListUsersQuery } from './schemas/admin-users';
import { recordSecurityEvent } from './security-log';
import { assertUnique, createUser, findUserById, toUserJson, type UserRow } from './users';
import { isAtLeast, type Role } from '../../platform/vocabulary';
import { auditStatement } from '../audit';
import { type User, type UserSummary } from './schemas/answers';

/** Who is acting, and from where: every admin write is recorded with both. */
export type AdminContext = { db: DB; kv: KVNamespace; actor: Actor; ip: string | null };

/**
 * What in an owner's change grants power, and so needs proof beyond the session (and never comes
 * from an API token): a reseller or owner created, a role raised, an address changed (a password
 * reset to the new address would take the account), a deactivated reseller or owner brought back.
 * Null when nothing does.
 */
export function powerGranted(
  before: { role: Role; email: string; isActive: boolean } | null,
  input: { role?: Role; email?: string; isActive?: boolean },
): 'role' | 'email' | 'reactivation' | null {
  if (input.role !== undefined && input.role !== 'user' && (before === null || !isAtLeast(before.role, input.role))) return 'role';
  if (before !== null && input.email !== undefined && input.email.toLowerCase() !== before.email.toLowerCase()) return 'email';
  // Bringing back a deactivated reseller or owner gives their power back, as raising a role would.
  if (before !== null && !before.isActive && input.isActive === true && (input.role ?? before.role) !== 'user') return 'reactivation';
  return null;
}

export const LAST_OWNER_MESSAGE = 'The last owner cannot be demoted, deactivated or deleted';

/**
 * One page of users, newest first. Search is a case-insensitive prefix of the username or the
 * email, each answered by its unique index. A reseller (`summary`) gets only the accounts they may
 * buy a key for, as purchaseForUser decides it: active customers (the user role, never an owner or
 * another reseller), and only their own when the shop sells to own customers only; and of each
 * only the name, email and role, enough to pick a customer.
 */
export async function listUsers(
  db: DB,
  query: ListUsersQuery,
  view: 'full' | { summaryFor: string; ownCustomersOnly: boolean },
): Promise<{ users: (User | UserSummary)[]; totalPages: number; total: number }> {
  const prefix = query.search?.toLowerCase();
  const summary = view === 'full' ? null : view;
  const where = and(
    prefix ? or(startsWith(sql`lower(${users.username})`, prefix), startsWith(sql`${users.email}`, prefix)) : undefined,
    query.role ? eq(users.role, query.role) : undefined,
    summary ? and(eq(users.isActive, true), eq(users.role, 'user'), ne(users.id, summary.summaryFor)) : undefined,
    summary?.ownCustomersOnly ? eq(users.resellerId, summary.summaryFor) : undefined,
  );
  // The page and its total in one round trip. Every account, or every one of a role: the total is
  // the shop's count (shop_counts, kept by migration 0032's triggers), not a walk of the accounts.
  const whole = summary === null && !prefix;
  const [rows, [totalRow]] = await db.batch([
    db
      .select()
      .from(users)
      .where(where)
      .orderBy(desc(users.createdAt), desc(users.id))
      .limit(runtimeLimit(query.limit))
      .offset(runtimeLimit((query.page - 1) * query.limit)),
    whole
      ? db
          .select({ n: sql<number>`coalesce(sum(${shopCounts.n}), 0)` })
          .from(shopCounts)
          .where(and(eq(shopCounts.kind, 'user_role'), query.role ? eq(shopCounts.value, query.role) : undefined))
      : db.select({ n: count() }).from(users).where(where),
  ]);
  const total = totalRow?.n ?? 0;
  const list =
    summary === null ? rows.map(toUserJson) : rows.map((u) => ({ _id: u.id, username: u.username, email: u.email, role: u.role }));
  return { users: list, totalPages: Math.ceil(total / query.limit), total };
}

export async function getUser(db: DB, id: string): Promise<UserRow> {
  const user = await findUserById(db, id);
  if (!user) throw notFound('User');
  return user;
}

export type CreateUserParsed = {
  username: string;
  email: string;
  password: string;
  role: UserRow['role'];
  balance: number;
  credits: number;
  isActive: boolean;
  emailVerified: boolean;
};

export async function createUserAsAdmin(admin: AdminContext, input: CreateUserParsed): Promise<UserRow> {
  const { db, actor, ip } = admin;
  const balanceCents = toCents(input.balance);
  return createUser(
    db,
    {
      username: input.username,
      email: input.email,
      password: input.password,
      role: input.role,
      balanceCents,
      credits: input.credits,
      isActive: input.isActive,
      emailVerified: input.emailVerified,
    },
    actor.id,
    (id) => [
      auditStatement(
        db,
        actor,
        'user.create',
        { type: 'user', id },
        {
          username: input.username,
          email: input.email,
          role: input.role,
          balance: input.balance,
          credits: input.credits,
          isActive: input.isActive,
          emailVerified: input.emailVerified,
        },
        ip,
      ),
    ],
  );
}

/**
 * True for a row that is not an active owner, or when another active owner remains. SQLite runs a
 * batch's statements one at a time, so two owners demoting each other cannot both pass.
 */
const leavesAnOwner = sql`(NOT (${users.role} = 'owner' AND ${users.isActive} = 1)
  OR EXISTS (SELECT 1 FROM ${users} AS other WHERE other.role = 'owner' AND other.is_active = 1 AND other.id != ${users.id}))`;

export type UpdateUserParsed = Partial<{
  username: string;
  email: string;
  role: UserRow['role'];
  balance: number;
  credits: number;
  isActive: boolean;
}>;

/**
 * Applies the owner's edit. Balance and credits are absolute: the ledger row's delta is computed
 * inside the batch from the row as it stands then, so a purchase that lands between the form's
 * load and this save is still accounted for.
 */
export async function updateUser(admin: AdminContext, id: string, input: UpdateUserParsed): Promise<UserRow> {
  const { db, actor, ip } = admin;
  const before = await getUser(db, id);
  if (input.username !== undefined || input.email !== undefined) {
    await assertUnique(db, input.email ?? before.email, input.username ?? before.username, id);
  }
  const removesAnOwner = (input.role !== undefined && input.role !== 'owner') || input.isActive === false;
  const guard = and(eq(users.id, id), removesAnOwner ? leavesAnOwner : undefined)!;
  const cents = input.balance === undefined ? undefined : toCents(input.balance);

  const changes: Record<string, { from: unknown; to: unknown }> = {};
  const note = (field: string, from: unknown, to: unknown) => {
    if (to !== undefined && from !== to) changes[field] = { from, to };
  };
  note('username', before.username, input.username);
  note('email', before.email, input.email);
  note('role', before.role, input.role);
  note('isActive', before.isActive, input.isActive);
  // The balances as read just before the write; the ledger row holds the exact delta.
  note('balance', before.balanceCents / 100, input.balance);
  note('credits', before.credits, input.credits);

  const moneyMoves = cents !== undefined || input.credits !== undefined;
  const creditsDelta = input.credits === undefined ? sql`0` : sql`${input.credits} - ${users.credits}`;
  const centsDelta = cents === undefined ? sql`0` : sql`${cents} - ${users.balanceCents}`;
  const now = Date.now();
  const adjustment = db.insert(ledger).select(
    // Every ledger column, in the table's order.
    sql`SELECT ${newId(now)}, ${users.id}, ${actor.id}, 'admin_adjustment', ${creditsDelta}, ${centsDelta}, NULL, 'Set by an owner', ${now}
          FROM ${users} WHERE ${guard} AND (${creditsDelta} != 0 OR ${centsDelta} != 0)`,
  );
  const audit = auditStatement(
    db,
    actor,
    'user.update',
    { type: 'user', id },
    { username: before.username, changes },
    ip,
    sql`EXISTS (SELECT 1 FROM ${users} WHERE ${guard})`,
  );
  const update = db
    .update(users)
    .set({
      username: input.username,
      email: input.email,
      role: input.role,
      isActive: input.isActive,
      credits: input.credits,
      balanceCents: cents,
    })
    .where(guard);

  // A role change or a deactivation ends every session and API token of the account, in the same
  // batch and only if the update happened: a reactivation brings none of them back.
  const roleChanges = input.role !== undefined && input.role !== before.role;
  const deactivates = input.isActive === false && before.isActive;
  const ends =
    roleChanges || deactivates
      ? endCredentialsStatements(
          db,
          id,
          {},
          and(roleChanges ? eq(users.role, input.role ?? before.role) : undefined, deactivates ? eq(users.isActive, false) : undefined),
        )
      : [];

  let results: unknown[];
  try {
    // The ledger and audit rows read the row before the update changes it.
    results = await db.batch([...(moneyMoves ? [adjustment] : []), audit, update, ...ends] as unknown as BatchItems);
  } catch (err) {
    // Another edit took the name or email a moment ago: the unique index decides.
    if (String((err as Error)?.message).includes('UNIQUE'))
      await assertUnique(db, input.email ?? before.email, input.username ?? before.username, id);
    throw err;
  }
  const updated = (results[results.length - 1 - ends.length] as D1Result).meta.changes;
  if (updated === 0) {
    if (!(await findUserById(db, id))) throw notFound('User');
    throw new AppError('CONFLICT', LAST_OWNER_MESSAGE);
  }
  if (deactivates) await recordSecurityEvent(db, id, 'account_deactivated', { ipAddress: ip, userAgent: null });
  return getUser(db, id);
}

/** Adds USD or credits to an account (the admin panel's "Add Balance or Credits"), with its ledger row. */
export async function addFunds(admin: AdminContext, id: string, input: AddFundsInput): Promise<UserRow> {
  const { db, actor, ip } = admin;
  // The name goes into the audit row, which outlives the account.
  const target = await getUser(db, id);
  const credits = input.type === 'credits' ? input.amount : 0;
  const cents = input.type === 'balance' ? toCents(input.amount) : 0;
  const now = new Date();
  const exists = eq(users.id, id);
  const topUp = db.insert(ledger).select(
    sql`SELECT ${newId(now.getTime())}, ${users.id}, ${actor.id}, 'admin_top_up', ${credits}, ${cents}, NULL, 'Added by an owner', ${now.getTime()}
          FROM ${users} WHERE ${exists}`,
  );
  const audit = auditStatement(
    db,
    actor,
    'user.add_funds',
    { type: 'user', id },
    { username: target.username, type: input.type, amount: input.amount },
    ip,
    sql`EXISTS (SELECT 1 FROM ${users} WHERE ${exists})`,
  );
  const update = db
    .update(users)
    .set({ credits: sql`${users.credits} + ${credits}`, balanceCents: sql`${users.balanceCents} + ${cents}` })
    .where(exists);
  const [, , result] = await db.batch([topUp, audit, update]);
  if (result.meta.changes === 0) throw notFound('User');
  return getUser(db, id);
}

/**
 * Deletes an account and ends its sessions. Its keys and ledger rows stay (they name the user by
 * id only, and screens show a deleted user); recovery tokens and API tokens go with it.
 */
export async function deleteUser(admin: AdminContext, id: string): Promise<void> {
  const { db, actor, ip } = admin;
  const before = await getUser(db, id);
  const guard = and(eq(users.id, id), leavesAnOwner)!;
  const audit = auditStatement(
    db,
    actor,
    'user.delete',
    { type: 'user', id },
    { username: before.username, email: before.email, role: before.role, balance: before.balanceCents / 100, credits: before.credits },
    ip,
    sql`EXISTS (SELECT 1 FROM ${users} WHERE ${guard})`,
  );
  // The account's sessions and API tokens go with its row (cascade).
  const [, result] = await db.batch([audit, db.delete(users).where(guard)]);
  if (result.meta.changes === 0) {
    if (!(await findUserById(db, id))) throw notFound('User');
    throw new AppError('CONFLICT', LAST_OWNER_MESSAGE);
  }
}

/**
 * Tells the people a change of power concerns, through the mail: the old address when an account's
 * address changed (a reset to the new one would take the account), and every other active owner
 * when an account became an owner. Run after the change has committed.
 */
export async function tellOfPowerChange(
  env: MailEnv,
  db: DB,
  actor: { id: string; username: string },
  before: { email: string; role: Role } | null,
  after: UserRow,
): Promise<void> {
  const mails: QueuedMail[] = [];
  if (before && before.email.toLowerCase() !== after.email.toLowerCase()) {
    mails.push({
      kind: 'security_notice',
      userId: after.id,
      toEmail: before.email,
      // Written in the recipient's language when it is sent (mail/compose.ts), from these facts.
      data: { notice: 'email_changed', actor: actor.username, to: after.email },
    });
  }
  if (after.role === 'owner' && before?.role !== 'owner') {
    const owners = await db
      .select({ email: users.email, id: users.id })
      .from(users)
      .where(and(eq(users.role, 'owner'), eq(users.isActive, true)))
      .all();
    for (const owner of owners.filter((o) => o.id !== after.id)) {
      mails.push({
        kind: 'security_notice',
        userId: owner.id,
        data: { notice: 'new_owner', actor: actor.username, name: after.username, email: after.email },
      });
    }
  }
  if (mails.length) await queueMails(db, mails);
}

/** How an owner's change asks for proof (the request's step-up, `proveCaller`), and runs work after the answer. */
export type OwnerChange = { prove: (what: string) => Promise<UserRow>; later: Later; env: MailEnv & { APP_URL?: string } };

/**
 * The owner creates an account: with proof when it is a reseller or owner (whoever proved it is told
 * of the new power, after the answer), and a verification link to an address the owner did not
 * vouch for, when this server can send one. Whether that link went.
 */
export async function addUser(admin: AdminContext, input: CreateUserParsed, change: OwnerChange) {
  const prover = powerGranted(null, input) ? await change.prove(`create a ${input.role}`) : null;
  const user = await createUserAsAdmin(admin, input);
  if (prover) await change.later(tellOfPowerChange(change.env, admin.db, prover, null, user));
  const verificationSent = user.emailVerifiedAt ? null : await sendVerificationIfPossible(change.env, admin.db, user, change.env.APP_URL);
  return { user, verificationSent };
}

/** The owner changes an account: with proof to raise its role or change its address, who proved it told after. */
export async function changeUser(admin: AdminContext, id: string, input: UpdateUserParsed, change: OwnerChange): Promise<UserRow> {
  const before = await getUser(admin.db, id);
  const granted = powerGranted(before, input);
  const what = { role: 'raise a role', email: "change an account's email", reactivation: 'reactivate a reseller or an owner' } as const;
  const prover = granted ? await change.prove(what[granted]) : null;
  const user = await updateUser(admin, id, input);
  if (prover) await change.later(tellOfPowerChange(change.env, admin.db, prover, before, user));
  return user;
}
