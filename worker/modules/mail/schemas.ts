// What the mail routes take and answer: the owner's list of mails with their state, a customer's
// choice of notices, the one-click unsubscribe, and the local mailbox (development only).
import { z } from 'zod';
import { isoDate, paged } from '../../platform/schemas/common';
import { pageQuery } from '../../platform/schemas/paging';
import { MAIL_KINDS, MAIL_STATES, NOTICE_MAIL_KINDS } from '../../platform/vocabulary';

export const MAILS_PAGE_SIZE = 25;

export const mailsQuery = z.object({
  ...pageQuery(MAILS_PAGE_SIZE),
  state: z.enum(MAIL_STATES, { error: `state must be one of ${MAIL_STATES.join(', ')}` }).optional(),
});
export type MailsQuery = z.output<typeof mailsQuery>;

export const mailEntrySchema = z
  .object({
    _id: z.string(),
    kind: z.enum(MAIL_KINDS),
    to: z.string().nullable().meta({ description: 'The address it went (or goes) to; null once its account is deleted.' }),
    subject: z.string().nullable().meta({ description: 'Written when it is sent; null until then.' }),
    state: z.enum(MAIL_STATES),
    attempts: z.int(),
    providerStatus: z.int().nullable().meta({ description: "The mail API's last HTTP status, when it refused it." }),
    lastError: z.string().nullable(),
    createdAt: isoDate,
    sentAt: isoDate.nullable(),
  })
  .meta({ id: 'MailEntry' });
export type MailEntry = z.infer<typeof mailEntrySchema>;
export const mailsResponseSchema = z.object(paged('mails', mailEntrySchema)).meta({ id: 'MailsResponse' });
export type MailsResponse = { mails: MailEntry[]; total: number; totalPages: number };

const noticeKind = z.enum(NOTICE_MAIL_KINDS, { error: `kind must be one of ${NOTICE_MAIL_KINDS.join(', ')}` });

/** A customer's notices: each kind on or off (account mail, such as a reset link, always goes). */
export const mailPreferencesSchema = z
  .object({
    notices: z.partialRecord(noticeKind, z.boolean({ error: 'each notice must be true or false' })),
  })
  .meta({ id: 'MailPreferences' });
export type MailPreferencesInput = z.input<typeof mailPreferencesSchema>;
export const mailPreferencesResponseSchema = z
  .object({
    notices: z.record(z.enum(NOTICE_MAIL_KINDS), z.boolean()),
    shopSendsNotices: z
      .boolean()
      .meta({ description: 'Whether the owner turned email notifications on: if not, none goes, whatever is chosen.' }),
  })
  .meta({ id: 'MailPreferencesResponse' });
export type MailPreferencesResponse = z.infer<typeof mailPreferencesResponseSchema>;

export const unsubscribeQuery = z.object({
  u: z.string().regex(/^[0-9a-f]{24}$/, 'This unsubscribe link is not valid'),
  k: noticeKind,
  t: z.string().min(10, 'This unsubscribe link is not valid').max(100, 'This unsubscribe link is not valid'),
});

export const localMailSchema = z.object({
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  html: z.string(),
  headers: z.record(z.string(), z.string()),
  sentAt: isoDate,
});
export const localMailboxSchema = z.object({ mails: z.array(localMailSchema) }).meta({ id: 'LocalMailbox' });
