// /api/admin/mails (owner): every mail and its state. /api/users/mail-preferences: a customer's
// notices. /api/mail/unsubscribe: the one-click unsubscribe of RFC 8058 (no sign-in: its token is
// the proof). /api/dev/mailbox and /dev/mailbox: the local mailbox, served only in local development.
import { Hono } from 'hono';
import type { AppEnv, SignedInEnv } from '../../platform/context';
import { AppError } from '../../platform/errors';
import { isLocalDevelopment, readWholeOutbox } from '../../platform/mail';
import { successMessageSchema } from '../../platform/openapi';
import { jsonBody, queryParams } from '../../platform/validate';
import { routeOperations } from '../accounts';
import { getSettings } from '../settings';
import { listMails, mailPreferences, setMailPreferences } from './mails';
import { mailboxPage } from './mailbox-page';
import {
  localMailboxSchema,
  mailPreferencesResponseSchema,
  mailPreferencesSchema,
  mailsQuery,
  mailsResponseSchema,
  unsubscribeQuery,
} from './schemas';
import { unsubscribe } from './unsubscribe';

const adminOp = routeOperations({ tag: 'Admin', access: 'owner' });
const accountOp = routeOperations({ tag: 'Account', access: 'user' });
const publicOp = routeOperations({ tag: 'Mail', access: 'public' });

const adminRoutes = new Hono<SignedInEnv>().get(
  '/mails',
  adminOp(
    'listMails',
    'Every mail, newest first, with its state and the mail API’s last status',
    { 200: mailsResponseSchema },
    { errors: [400] },
  ),
  queryParams(mailsQuery),
  async (c) => c.json(await listMails(c.var.db, c.req.valid('query')), 200),
);

const accountRoutes = new Hono<SignedInEnv>()
  .get(
    '/mail-preferences',
    accountOp('getMailPreferences', 'The notices I get by mail', { 200: mailPreferencesResponseSchema }),
    async (c) =>
      c.json(
        {
          notices: await mailPreferences(c.var.db, c.var.caller.id),
          shopSendsNotices: (await getSettings(c.env.KV)).emailNotificationsEnabled,
        },
        200,
      ),
  )
  .put(
    '/mail-preferences',
    accountOp('setMailPreferences', 'Choose the notices I get by mail', { 200: mailPreferencesResponseSchema }, { errors: [400] }),
    jsonBody(mailPreferencesSchema),
    async (c) =>
      c.json(
        {
          notices: await setMailPreferences(c.var.db, c.var.caller.id, c.req.valid('json').notices),
          shopSendsNotices: (await getSettings(c.env.KV)).emailNotificationsEnabled,
        },
        200,
      ),
  );

const publicRoutes = new Hono<AppEnv>().post(
  '/unsubscribe',
  publicOp(
    'unsubscribe',
    'Stop one kind of notice, in one click (RFC 8058): the link’s token is the proof',
    { 200: successMessageSchema },
    { errors: [400] },
  ),
  queryParams(unsubscribeQuery),
  async (c) => {
    if (!(await unsubscribe(c.var.db, c.env.JWT_SECRET, c.req.valid('query')))) {
      throw new AppError('VALIDATION_ERROR', 'This unsubscribe link is not valid');
    }
    return c.json({ success: true as const, message: 'You will not get these mails any more. Choose again on your security page.' }, 200);
  },
);

/** The local mailbox: every mail the local outbox kept. A deployment answers 404, as for no route. */
const devRoutes = new Hono<AppEnv>().get(
  '/mailbox',
  publicOp(
    'localMailbox',
    'Local development only: every mail this server sent, newest first',
    { 200: localMailboxSchema },
    { errors: [404] },
  ),
  async (c) => {
    if (!isLocalDevelopment(c.env)) throw new AppError('NOT_FOUND', `No API route for GET ${c.req.path}`);
    const mails = await readWholeOutbox(c.env.KV);
    return c.json({ mails: mails.map((m) => ({ ...m, sentAt: new Date(m.sentAt).toISOString() })) }, 200);
  },
);

const pageRoutes = new Hono<AppEnv>().get('/mailbox', async (c) => {
  if (!isLocalDevelopment(c.env)) return c.notFound();
  return c.html(mailboxPage(await readWholeOutbox(c.env.KV)));
});

export const mailMounts = [
  ['/api/admin', adminRoutes],
  ['/api/users', accountRoutes],
  ['/api/mail', publicRoutes],
  ['/api/dev', devRoutes],
  ['/dev', pageRoutes],
] as const;
