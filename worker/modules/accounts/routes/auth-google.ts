// /api/auth/google: signing in with Google, by browser navigations (modules/accounts/google-flow.ts has the flow).
import { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../../platform/context';
import { findUserById, toUserJson } from '../users';
import { AppError } from '../../../platform/errors';
import { finishGoogleFlow, GOOGLE_RETURN_PAGE, leaveGoogleOutcome, refused, startGoogleFlow, takeGoogleOutcome } from '../google-flow';
import { verifySessionToken } from '../sessions';
import { queryParams } from '../../../platform/validate';
import { limitPerIp } from '../rate-limit';
import { routeOperations } from '../operation';
import { googleCompletionSchema, googleUrlSchema } from '../schemas/answers';

const op = routeOperations({ tag: 'Google sign-in', access: 'public' });

export const authGoogleRoutes = new Hono<AppEnv>()
  // The original client navigates here: straight on to Google.
  .get(
    '/',
    op(
      'googleStart',
      'Go to Google to sign in',
      { 302: { description: 'Redirect to Google' } },
      { errors: [404, 429], servedInMaintenance: true },
    ),
    limitPerIp,
    async (c) => c.redirect(await startGoogleFlow(c, { intent: 'signin', rememberMe: false }), 302),
  )
  // The app asks first, so it can show why when Google is not configured (404 NOT_CONFIGURED) before leaving.
  .get(
    '/url',
    op(
      'googleSignInUrl',
      "The address of Google's sign-in page, for the app to go to",
      { 200: googleUrlSchema },
      { errors: [400, 404, 429], servedInMaintenance: true },
    ),
    limitPerIp,
    queryParams(z.object({ rememberMe: z.enum(['true', 'false']).optional() })),
    async (c) => {
      const { rememberMe } = c.req.valid('query');
      return c.json({ url: await startGoogleFlow(c, { intent: 'signin', rememberMe: rememberMe === 'true' }) }, 200);
    },
  )
  .get(
    '/callback',
    op(
      'googleCallback',
      'Where Google sends the browser back',
      { 302: { description: "Redirect to the app's /login/google page" } },
      { servedInMaintenance: true },
    ),
    async (c) => {
      await leaveGoogleOutcome(c, await finishGoogleFlow(c));
      return c.redirect(GOOGLE_RETURN_PAGE, 302);
    },
  )
  .post(
    '/complete',
    op(
      'googleComplete',
      'Collect the outcome of a Google sign-in or connect',
      { 200: googleCompletionSchema },
      { errors: [400, 401, 403, 404, 409, 503], servedInMaintenance: true },
    ),
    async (c) => {
      const outcome = await takeGoogleOutcome(c);
      if (!outcome) throw new AppError('VALIDATION_ERROR', 'No Google sign-in is waiting here. Please start again.');
      switch (outcome.kind) {
        case 'session': {
          const session = await verifySessionToken(c.env.JWT_SECRET, outcome.token);
          const user = session ? await findUserById(c.var.db, session.userId) : undefined;
          if (!user) throw refused('Your Google sign-in expired. Please try again.');
          return c.json({ token: outcome.token, user: toUserJson(user) }, 200);
        }
        case '2fa':
          return c.json({ requires2FA: true as const, challenge: outcome.challenge }, 200);
        case 'connected':
          return c.json({ connected: true as const, message: 'Google account connected' }, 200);
        case 'error':
          throw new AppError(outcome.code, outcome.message, { details: { intent: outcome.intent } });
      }
    },
  );
