// Recovery tokens: ten one-time replacements for a two-factor code, shown once and stored hashed.
import { and, count, eq, isNull } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { recoveryTokens } from '../../platform/db/schema';
import { newId, sha256Hex } from '../../platform/ids';
import { RECOVERY_TOKEN_COUNT } from './schemas/security';
import { AppError } from '../../platform/errors';
import type { SessionOrigin } from '../../platform/request';
import { recordSecurityEvent } from './security-log';
import type { UserRow } from './users';

// Crockford's base32 (no I, L, O, U): a token copied onto paper reads back without doubt.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const SYMBOLS = 16; // 16 x 5 bits = 80 bits of randomness

export function newRecoveryToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(SYMBOLS));
  // 256 is a multiple of 32, so taking each byte modulo 32 is unbiased.
  const symbols = Array.from(bytes, (b) => ALPHABET[b % 32]);
  return [0, 4, 8, 12].map((i) => symbols.slice(i, i + 4).join('')).join('-');
}

/** Case, spaces and dashes do not matter when a person types a token back; O reads as 0, I and L as 1. */
export const normalizeRecoveryToken = (token: string) =>
  token
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '')
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1');

/** Hashed with the account id, so the same text could never be spent on another account. */
const tokenHash = (userId: string, token: string) => sha256Hex(`${userId}:${normalizeRecoveryToken(token)}`);

/** A new set of tokens, replacing the old set in the same batch; the plain tokens are returned once. */
export async function replaceRecoveryTokens(db: DB, userId: string, now = new Date()): Promise<string[]> {
  const tokens = Array.from({ length: RECOVERY_TOKEN_COUNT }, newRecoveryToken);
  const rows = await Promise.all(tokens.map(async (t) => ({ id: newId(), userId, tokenHash: await tokenHash(userId, t), createdAt: now })));
  await db.batch([db.delete(recoveryTokens).where(eq(recoveryTokens.userId, userId)), db.insert(recoveryTokens).values(rows)]);
  return tokens;
}

export async function countRecoveryTokens(db: DB, userId: string): Promise<number> {
  const row = await db
    .select({ n: count() })
    .from(recoveryTokens)
    .where(and(eq(recoveryTokens.userId, userId), isNull(recoveryTokens.usedAt)))
    .get();
  return row?.n ?? 0;
}

/** Spends a token; one guarded UPDATE, so a token used twice at once still works only once. */
export async function spendRecoveryToken(db: DB, userId: string, token: string, now = new Date()): Promise<boolean> {
  const spent = await db
    .update(recoveryTokens)
    .set({ usedAt: now })
    .where(
      and(eq(recoveryTokens.userId, userId), eq(recoveryTokens.tokenHash, await tokenHash(userId, token)), isNull(recoveryTokens.usedAt)),
    )
    .returning({ id: recoveryTokens.id });
  return spent.length === 1;
}

/** A new set of recovery tokens for an account with two-factor on; the old set stops working. */
export async function newRecoveryTokens(db: DB, user: Pick<UserRow, 'id' | 'twoFactorEnabled'>, origin: SessionOrigin): Promise<string[]> {
  if (!user.twoFactorEnabled) throw new AppError('CONFLICT', 'Turn on two-factor authentication before generating recovery tokens');
  const tokens = await replaceRecoveryTokens(db, user.id);
  await recordSecurityEvent(db, user.id, 'recovery_tokens_generated', origin);
  return tokens;
}
