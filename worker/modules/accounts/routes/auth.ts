// /api/auth: registering, signing in (with a second factor when it is on), password reset, signing out.
import { Hono } from 'hono';
import type { AppEnv } from '../../../platform/context';
import { resetPassword, sendPasswordReset } from '../password-reset';
import { spendRecoveryToken } from '../recovery';
import { recordSecurityEvent } from '../security-log';
import { accountDisabled, afterFirstFactor, endSessionLogged, openSession } from '../sign-in';
import { enforce, passwordAttempt, refund, RULES, secondFactorAttempt } from '../../../platform/throttle';
import { readChallenge, releaseChallenge, spendChallenge, spendTwoFactorCode } from '../two-factor';
import { createUser, findUserByEmail, findUserById } from '../users';
import { emailAlreadyVerified, sendVerificationIfPossible, sendVerificationLink, verifyEmail } from '../email-verification';
import { appUrl } from '../../../platform/app-url';
import { AppError, notFound, registrationClosed } from '../../../platform/errors';
import { assertMailAvailable } from '../../../platform/mail';
import { verifyPassword } from '../../../platform/password';
import { inBackground, requestOrigin } from '../../../platform/request';
import { getSettings } from '../../settings/store';
import { jsonBody } from '../../../platform/validate';
import { sessionOf, signedInCaller } from '../identify';
import { limitPerIp } from '../rate-limit';
import { loginSchema, registerSchema } from '../schemas/auth';
import { forgotPasswordSchema, loginTwoFactorSchema, resetPasswordSchema, verifyEmailSchema } from '../schemas/security';
import { loginResponseSchema, registerResponseSchema, sessionAnswerSchema } from '../../../platform/schemas/entities';
import { successMessageSchema } from '../../../platform/openapi';
import { routeOperations } from '../operation';

const op = routeOperations({ tag: 'Auth', access: 'public' });

// One answer for an unknown email and a wrong password, so neither reveals an account.
const invalidCredentials = () => new AppError('INVALID_CREDENTIALS', 'Invalid email or password');
const challengeExpired = () => new AppError('UNAUTHORIZED', 'This sign-in has expired. Please sign in again.');
const challengeUsed = () => new AppError('UNAUTHORIZED', 'This sign-in was already completed. Please sign in again.');

export const authRoutes = new Hono<AppEnv>()
  .post(
    '/register',
    op(
      'register',
      'Create an account and sign in',
      { 201: { description: 'Registered and signed in', schema: registerResponseSchema } },
      { errors: [400, 403, 409, 429] },
    ),
    limitPerIp,
    jsonBody(registerSchema),
    async (c) => {
      const settings = await getSettings(c.env.KV);
      if (!settings.registrationEnabled) throw registrationClosed();
      const { username, email, password } = c.req.valid('json');
      const origin = requestOrigin(c);
      const created = await createUser(c.var.db, { username, email, password });
      const { token, user } = await openSession(c.env, c.var.db, created, origin, false, 'register');
      // The address is not proven yet: a link goes to it (without mail or APP_URL, the account asks again later).
      await inBackground(c, sendVerificationIfPossible(c.env, c.var.db, created, c.env.APP_URL));
      return c.json({ success: true, token, user, message: 'Registration successful' }, 201);
    },
  )
  .post(
    '/login',
    op(
      'login',
      'Sign in with email and password',
      { 200: { description: 'A session, or a two-factor challenge', schema: loginResponseSchema } },
      // In maintenance the credentials are still checked; only an owner gets a session (domain/sign-in.ts).
      { errors: [400, 401, 403, 429, 503], servedInMaintenance: true },
    ),
    limitPerIp,
    jsonBody(loginSchema),
    async (c) => {
      const { email, password, rememberMe } = c.req.valid('json');
      const origin = requestOrigin(c);
      // Counted before the check, so concurrent guesses cannot all pass under the limit.
      const attempt = await passwordAttempt(c.var.db, email, origin.ipAddress);
      const user = await findUserByEmail(c.var.db, email);
      const ok = await verifyPassword(password, user?.passwordHash ?? null);
      if (!user || !ok) {
        if (user) await inBackground(c, recordSecurityEvent(c.var.db, user.id, 'login_failed', origin));
        throw invalidCredentials();
      }
      await refund(c.var.db, attempt);
      // With two-factor on, the answer is a challenge for POST /login/2fa, never a session token.
      return c.json(await afterFirstFactor(c.env, c.var.db, user, origin, rememberMe), 200);
    },
  )
  .post(
    '/login/2fa',
    op(
      'loginTwoFactor',
      'Finish a sign-in with a two-factor code or a recovery token',
      { 200: { description: 'Signed in', schema: sessionAnswerSchema } },
      { errors: [400, 401, 403, 429, 503], servedInMaintenance: true },
    ),
    limitPerIp,
    jsonBody(loginTwoFactorSchema),
    async (c) => {
      const { challenge, code, recoveryToken } = c.req.valid('json');
      const claim = await readChallenge(c.env.JWT_SECRET, challenge);
      if (!claim) throw challengeExpired();
      const user = await findUserById(c.var.db, claim.userId);
      if (!user || !user.twoFactorEnabled) throw challengeExpired();
      if (!user.isActive) throw accountDisabled();
      const origin = requestOrigin(c);
      const attempts = await secondFactorAttempt(c.var.db, user.id);
      // Spent before the code is checked, so two calls with one challenge cannot both open a session
      // (nor both spend a recovery token); a wrong code gives it back for another try.
      if (!(await spendChallenge(c.var.db, claim))) throw challengeUsed();
      const failed = async (message: string) => {
        await releaseChallenge(c.var.db, claim);
        await recordSecurityEvent(c.var.db, user.id, '2fa_failed', origin);
        return new AppError('INVALID_CREDENTIALS', message);
      };
      if (code !== undefined) {
        const check = await spendTwoFactorCode(c.env, c.var.db, user, code);
        if (check !== 'ok') {
          throw await failed(
            check === 'reused' ? 'This code was already used. Wait for the next code and try again.' : 'Invalid two-factor code',
          );
        }
      } else if (!(await spendRecoveryToken(c.var.db, user.id, recoveryToken!))) {
        throw await failed('Invalid or already used recovery token');
      } else {
        await recordSecurityEvent(c.var.db, user.id, 'recovery_token_used', origin);
      }
      await Promise.all(attempts.map((a) => refund(c.var.db, a)));
      return c.json(await openSession(c.env, c.var.db, user, origin, claim.rememberMe), 200);
    },
  )
  .post(
    '/verify-email',
    op(
      'verifyEmail',
      "Prove my email address with a verification link's token",
      { 200: { description: 'Verified', schema: successMessageSchema } },
      { errors: [400, 429] },
    ),
    limitPerIp,
    jsonBody(verifyEmailSchema),
    async (c) => {
      await verifyEmail(c.var.db, c.req.valid('json').token);
      return c.json({ success: true, message: 'Your email address is verified.' }, 200);
    },
  )
  .post(
    '/send-verification',
    op(
      'sendVerification',
      'Send the link that verifies my email address again',
      { 200: { description: 'Sent', schema: successMessageSchema } },
      { access: 'user', tokens: false, errors: [404, 409, 429, 501] },
    ),
    async (c) => {
      assertMailAvailable(c.env);
      const link = appUrl(c, 'an email verification link');
      const user = await findUserById(c.var.db, signedInCaller(c).id);
      if (!user) throw notFound('User');
      if (user.emailVerifiedAt) throw emailAlreadyVerified();
      await enforce(c.var.db, `verify-mail:${user.id}`, RULES.resetEmails, 'Too many verification emails. Please wait a few minutes.');
      await sendVerificationLink(c.env, c.var.db, user, link);
      return c.json({ success: true, message: `A verification link is on its way to ${user.email}.` }, 200);
    },
  )
  .post(
    '/forgot-password',
    op(
      'forgotPassword',
      'Send a password reset link',
      { 200: { description: 'The same answer whether or not the account exists', schema: successMessageSchema } },
      { errors: [400, 429, 501] },
    ),
    limitPerIp,
    jsonBody(forgotPasswordSchema),
    async (c) => {
      const { email } = c.req.valid('json');
      // The same refusal for every address, so it reveals nothing about accounts.
      assertMailAvailable(c.env);
      const link = appUrl(c, 'a password reset link');
      // Per address whether or not it has an account, so the limit itself reveals nothing.
      await enforce(c.var.db, `reset-mail:${email}`, RULES.resetEmails, 'Too many reset requests for this email.');
      const origin = requestOrigin(c);
      // After the response, so an existing account does not answer more slowly than a missing one.
      await inBackground(
        c,
        sendPasswordReset(c.env, c.var.db, email, link)
          .then((userId) => (userId ? recordSecurityEvent(c.var.db, userId, 'password_reset_requested', origin) : undefined))
          .catch((err) => console.error('Password reset email failed', err)),
      );
      return c.json({ success: true, message: 'If an account exists for that email, a link to reset the password is on its way.' }, 200);
    },
  )
  .post(
    '/reset-password',
    op(
      'resetPassword',
      "Set a new password with a reset link's token",
      { 200: { description: 'Password reset; every session ended', schema: successMessageSchema } },
      { errors: [400, 429] },
    ),
    limitPerIp,
    jsonBody(resetPasswordSchema),
    async (c) => {
      const { token, password } = c.req.valid('json');
      // Every session and API token ends with the old password; two-factor stays on, so the next
      // sign-in still asks for a code.
      const userId = await resetPassword(c.var.db, token, password);
      await recordSecurityEvent(c.var.db, userId, 'password_reset', requestOrigin(c));
      return c.json({ success: true, message: 'Your password has been reset. Please sign in with your new password.' }, 200);
    },
  )
  .post(
    '/logout',
    op(
      'logout',
      'Sign out of this session',
      { 200: { description: 'Signed out', schema: successMessageSchema } },
      { access: 'user', tokens: false, servedInMaintenance: true },
    ),
    async (c) => {
      const caller = signedInCaller(c);
      await endSessionLogged(c.var.db, caller.id, sessionOf(caller).id, 'logout', requestOrigin(c));
      return c.json({ success: true, message: 'Logged out' }, 200);
    },
  );
