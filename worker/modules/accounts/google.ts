// Google sign-in through arctic (authorization code with PKCE). The ID token comes straight from
// Google's token endpoint over TLS, so its claims are checked (issuer, audience, expiry, verified
// email) without fetching Google's signing keys (OpenID Connect Core 3.1.3.7).
import { decodeIdToken, Google, type OAuth2Tokens } from 'arctic';
import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import type { DB } from '../../platform/db/client';
import { users } from '../../platform/db/schema';
import type { Env } from '../../platform/env';
import { AppError } from '../../platform/errors';
import { USERNAME_MAX, USERNAME_MIN } from './schemas/auth';
import { createUser, findUserByEmail, type UserRow } from './users';
import type { SessionOrigin } from '../../platform/request';
import { recordSecurityEvent } from './security-log';

export const GOOGLE_SCOPES = ['openid', 'email', 'profile'];
const ISSUERS = new Set(['https://accounts.google.com', 'accounts.google.com']);

export type GoogleProfile = { sub: string; email: string; name: string | null };

export const googleConfigured = (env: Pick<Env, 'GOOGLE_CLIENT_ID' | 'GOOGLE_CLIENT_SECRET'>) =>
  Boolean(env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET);

export const notConfigured = () =>
  new AppError(
    'NOT_CONFIGURED',
    'Sign in with Google is not available on this server (it needs GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET). Please use your email and password.',
  );

export function googleClient(env: Pick<Env, 'GOOGLE_CLIENT_ID' | 'GOOGLE_CLIENT_SECRET'>, appUrl: string): Google {
  if (!googleConfigured(env)) throw notConfigured();
  return new Google(env.GOOGLE_CLIENT_ID!, env.GOOGLE_CLIENT_SECRET!, `${appUrl}/api/auth/google/callback`);
}

const googleRefused = (why: string) => new AppError('UNAUTHORIZED', `Google sign-in could not be verified (${why}). Please try again.`);

/** The Google account behind the tokens, once its ID token's claims are checked. */
export function googleProfile(tokens: OAuth2Tokens, clientId: string, now = Date.now()): GoogleProfile {
  let claims: Record<string, unknown>;
  try {
    claims = decodeIdToken(tokens.idToken()) as Record<string, unknown>;
  } catch {
    throw googleRefused('no identity in the answer');
  }
  const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!ISSUERS.has(String(claims.iss))) throw googleRefused('wrong issuer');
  if (!audience.includes(clientId)) throw googleRefused('wrong audience');
  if (typeof claims.exp !== 'number' || claims.exp * 1000 <= now) throw googleRefused('expired identity');
  if (typeof claims.sub !== 'string' || !claims.sub) throw googleRefused('no account id');
  if (typeof claims.email !== 'string' || claims.email_verified !== true) {
    throw new AppError('FORBIDDEN', 'Your Google account has no verified email address.');
  }
  return { sub: claims.sub, email: claims.email.toLowerCase(), name: typeof claims.name === 'string' ? claims.name : null };
}

const findByGoogleId = (db: DB, sub: string) => db.select().from(users).where(eq(users.googleId, sub)).get();

/**
 * The account a Google sign-in opens: the one linked to this Google account, or a new one unless
 * `newAccounts` (the refusal a new account gets now: registration closed, maintenance) says
 * otherwise. An existing account with the same email that was never linked is not taken over:
 * registration here does not prove the email, so linking by address would let whoever registered it
 * first (or Google's owner of it) into the other's account. Its owner connects Google after signing in.
 */
export async function accountForGoogle(
  db: DB,
  profile: GoogleProfile,
  newAccounts: AppError | null,
): Promise<{ user: UserRow; created: boolean }> {
  const linked = await findByGoogleId(db, profile.sub);
  if (linked) return { user: linked, created: false };
  if (await findUserByEmail(db, profile.email)) {
    throw new AppError(
      'CONFLICT',
      'An account with this email already exists. Sign in with your password, then connect Google in Security settings.',
    );
  }
  if (newAccounts) throw newAccounts;
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const user = await createUser(db, {
        username: usernameFor(profile, attempt),
        email: profile.email,
        password: null,
        googleId: profile.sub,
        googleEmail: profile.email,
        // Google says it verified this address (googleProfile refuses any other).
        emailVerified: true,
      });
      return { user, created: true };
    } catch (err) {
      // A taken username gets a numbered variant; anything else (the same Google account racing) surfaces.
      if (!(err instanceof AppError && err.message === 'This username is already taken')) {
        const raced = await findByGoogleId(db, profile.sub);
        if (raced) return { user: raced, created: false };
        throw err;
      }
    }
  }
  throw new AppError('CONFLICT', 'Could not choose a username for this Google account. Please register with email instead.');
}

/** A username from the Google name or email: allowed characters, 3-30 long, numbered after a clash. */
export function usernameFor(profile: GoogleProfile, attempt: number): string {
  const base = (profile.name ?? profile.email.split('@')[0])
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9_.-]+/g, '')
    .slice(0, USERNAME_MAX - 5);
  const stem = base.length >= USERNAME_MIN ? base : `${base}user`.slice(0, USERNAME_MAX - 5);
  if (attempt === 0) return stem;
  const suffix = crypto.getRandomValues(new Uint32Array(1))[0] % 10_000;
  return `${stem}${suffix.toString().padStart(4, '0')}`;
}

/**
 * Connecting Google needs a verified address: otherwise whoever registered someone else's address
 * could link their own Google account and keep a way in after the address's owner takes it over.
 */
export function assertMayConnectGoogle(user: Pick<UserRow, 'emailVerifiedAt' | 'googleId'>) {
  if (user.googleId) throw new AppError('CONFLICT', 'A Google account is already connected. Disconnect it first.');
  if (!user.emailVerifiedAt) {
    throw new AppError(
      'EMAIL_UNVERIFIED',
      'Please verify your email address before connecting Google: open the link we sent you, or send it again.',
    );
  }
}

/** Links a Google account to a signed-in user whose address is verified. */
export async function connectGoogle(db: DB, userId: string, profile: GoogleProfile) {
  const owner = await findByGoogleId(db, profile.sub);
  if (owner && owner.id !== userId) throw new AppError('CONFLICT', 'This Google account is already connected to another account.');
  if (owner) return;
  try {
    const linked = await db
      .update(users)
      .set({ googleId: profile.sub, googleEmail: profile.email })
      .where(and(eq(users.id, userId), isNull(users.googleId), isNotNull(users.emailVerifiedAt)))
      .returning({ id: users.id });
    if (!linked.length) {
      const user = await db.select().from(users).where(eq(users.id, userId)).get();
      if (user) assertMayConnectGoogle(user);
      throw new AppError('CONFLICT', 'A Google account is already connected. Disconnect it first.');
    }
  } catch (err) {
    if (String((err as Error)?.message).includes('UNIQUE'))
      throw new AppError('CONFLICT', 'This Google account is already connected to another account.');
    throw err;
  }
}

/** Throws 409 when Google cannot be disconnected (none connected, or it is the only way in). */
export function assertMayDisconnectGoogle(user: UserRow) {
  if (!user.googleId) throw new AppError('CONFLICT', 'No Google account is connected.');
  if (!user.passwordHash) {
    throw new AppError(
      'CONFLICT',
      'Google is the only way into this account. Set a password first (use "Forgot password" on the sign-in page), then disconnect Google.',
    );
  }
}

/** Unlinks Google, unless it is the only way into the account (no password set). */
export async function disconnectGoogle(db: DB, user: UserRow, origin: SessionOrigin) {
  assertMayDisconnectGoogle(user);
  await db.update(users).set({ googleId: null, googleEmail: null }).where(eq(users.id, user.id));
  await recordSecurityEvent(db, user.id, 'google_disconnected', origin);
}
