// /api/auth: registering, signing in (with a second factor when it is on), password reset, signing out.
import { Hono } from 'hono';
import type { AppEnv } from '../../../platform/context';
import { resendVerification, verifyEmail } from '../email-verification';
import { requestPasswordReset, resetPassword } from '../password-reset';
import { endSessionLogged, finishTwoFactorSignIn, register, signInWithPassword } from '../sign-in';
import { appUrl } from '../../../platform/app-url';
import { inBackground, requestOrigin } from '../../../platform/request';
import { jsonBody } from '../../../platform/validate';
import { sessionOf, signedInCaller } from '../identify';
import { limitPerIp } from '../rate-limit';
import { loginSchema, registerSchema } from '../schemas/auth';
import { forgotPasswordSchema, loginTwoFactorSchema, resetPasswordSchema, verifyEmailSchema } from '../schemas/security';
import { successMessageSchema } from '../../../platform/openapi';
import { routeOperations } from '../operation';
import { loginResponseSchema, registerResponseSchema, sessionAnswerSchema } from '../schemas/answers';

const op = routeOperations({ tag: 'Auth', access: 'public' });

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
      const { token, user } = await register(c.env, c.var.db, c.req.valid('json'), requestOrigin(c), (work) => inBackground(c, work));
      return c.json({ success: true, token, user, message: 'Registration successful' }, 201);
    },
  )
  .post(
    '/login',
    op(
      'login',
      'Sign in with email and password',
      { 200: { description: 'A session, or a two-factor challenge', schema: loginResponseSchema } },
      // In maintenance the credentials are still checked; only an owner gets a session (modules/accounts/sign-in.ts).
      { errors: [400, 401, 403, 429, 503], servedInMaintenance: true },
    ),
    limitPerIp,
    jsonBody(loginSchema),
    // With two-factor on, the answer is a challenge for POST /login/2fa, never a session token.
    async (c) =>
      c.json(await signInWithPassword(c.env, c.var.db, c.req.valid('json'), requestOrigin(c), (work) => inBackground(c, work)), 200),
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
    async (c) => c.json(await finishTwoFactorSignIn(c.env, c.var.db, c.req.valid('json'), requestOrigin(c)), 200),
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
      { access: 'user', tokens: false, errors: [404, 409, 429] },
    ),
    async (c) => {
      const email = await resendVerification(c.env, c.var.db, signedInCaller(c).id, () => appUrl(c, 'an email verification link'));
      return c.json({ success: true, message: `A verification link is on its way to ${email}.` }, 200);
    },
  )
  .post(
    '/forgot-password',
    op(
      'forgotPassword',
      'Send a password reset link',
      { 200: { description: 'The same answer whether or not the account exists', schema: successMessageSchema } },
      { errors: [400, 404, 429] },
    ),
    limitPerIp,
    jsonBody(forgotPasswordSchema),
    async (c) => {
      await requestPasswordReset(
        c.env,
        c.var.db,
        c.req.valid('json').email,
        () => appUrl(c, 'a password reset link'),
        requestOrigin(c),
        (work) => inBackground(c, work),
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
      await resetPassword(c.var.db, token, password, requestOrigin(c));
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
