import { eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { runBatch, type DB } from '../../platform/db/client';
import { ledger, users } from '../../platform/db/schema';
import { AppError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { hashPassword } from '../../platform/password';
import type { Language } from '../../platform/vocabulary';
import { dispatchCommitted, webhookEvents } from '../webhooks';
import { type User } from './schemas/answers';

export type UserRow = typeof users.$inferSelect;

/** The user as every client sees it: `balance` in dollars, never a secret. */
export function toUserJson(u: UserRow): User {
  return {
    _id: u.id,
    username: u.username,
    email: u.email,
    role: u.role,
    balance: u.balanceCents / 100,
    credits: u.credits,
    isActive: u.isActive,
    createdAt: u.createdAt.toISOString(),
    lastLogin: u.lastLogin ? u.lastLogin.toISOString() : null,
    twoFactorEnabled: u.twoFactorEnabled,
    googleConnected: u.googleId !== null,
    emailVerified: u.emailVerifiedAt !== null,
    language: u.language,
  };
}
export type UserJson = User;

/** The web app's language for this account (null: follow the browser); answers the user as they are now. */
export async function setLanguage(db: DB, user: UserRow, language: Language | null): Promise<User> {
  await db.update(users).set({ language }).where(eq(users.id, user.id)).run();
  return toUserJson({ ...user, language });
}

export const findUserById = (db: DB, id: string) => db.select().from(users).where(eq(users.id, id)).get();
export const findUserByEmail = (db: DB, email: string) => db.select().from(users).where(eq(users.email, email.toLowerCase())).get();

export type NewUser = {
  username: string;
  email: string;
  password: string | null;
  role?: UserRow['role'];
  balanceCents?: number;
  credits?: number;
  isActive?: boolean;
  googleId?: string | null;
  googleEmail?: string | null;
  /** The address is proven already (Google's verified address, or the owner vouching for it). */
  emailVerified?: boolean;
  /** The reseller the new account belongs to (registered through their referral link). */
  resellerId?: string | null;
};

/**
 * Creates a user; opening balances are recorded in the ledger in the same batch, so the
 * ledger reconciles from the first row. Duplicate email or username is a 409.
 */
export async function createUser(
  db: DB,
  input: NewUser,
  actorId: string | null = null,
  /** Statements that must commit with the new user (an admin's audit row). */
  alsoRun: (userId: string) => BatchItem<'sqlite'>[] = () => [],
): Promise<UserRow> {
  const now = new Date();
  const id = newId(now.getTime());
  const row = {
    id,
    username: input.username,
    email: input.email.toLowerCase(),
    passwordHash: input.password === null ? null : await hashPassword(input.password),
    role: input.role ?? 'user',
    balanceCents: input.balanceCents ?? 0,
    credits: input.credits ?? 0,
    isActive: input.isActive ?? true,
    createdAt: now,
    googleId: input.googleId ?? null,
    googleEmail: input.googleEmail ?? null,
    emailVerifiedAt: input.emailVerified ? now : null,
    resellerId: input.resellerId ?? null,
  } as const;
  await assertUnique(db, row.email, row.username);
  const openingBalance =
    row.balanceCents || row.credits
      ? [
          db.insert(ledger).values({
            id: newId(),
            userId: id,
            actorId,
            kind: 'opening_balance',
            creditsDelta: row.credits,
            usdCentsDelta: row.balanceCents,
            createdAt: now,
          }),
        ]
      : [];
  try {
    const fresh = {
      ...row,
      lastLogin: null,
      twoFactorEnabled: false,
      twoFactorSecret: null,
      twoFactorPendingSecret: null,
      twoFactorLastStep: null,
      passwordChangedAt: null,
      paymentFlaggedAt: null,
      credentialEpoch: 0,
      resellerTierId: null,
      referralCode: null,
      mailOptOuts: [],
      lowBalanceMailedAt: null,
      language: null,
    };
    const registered = webhookEvents('user.registered', [{ user: toUserJson(fresh) }], now.getTime());
    await dispatchCommitted(await runBatch(db, [db.insert(users).values(row), ...openingBalance, ...alsoRun(id), registered]), db);
  } catch (err) {
    // Two registrations racing for the same name: the unique index decides.
    if (String((err as Error)?.message).includes('UNIQUE')) await assertUnique(db, row.email, row.username);
    throw err;
  }
  return (await findUserById(db, id))!;
}

export async function assertUnique(db: DB, email: string, username: string, exceptId?: string) {
  const clash = await db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(sql`(${users.email} = ${email.toLowerCase()} OR lower(${users.username}) = ${username.toLowerCase()})`)
    .all();
  const other = clash.filter((u) => u.id !== exceptId);
  if (other.some((u) => u.email === email.toLowerCase())) throw new AppError('CONFLICT', 'An account with this email already exists');
  if (other.length) throw new AppError('CONFLICT', 'This username is already taken');
}
