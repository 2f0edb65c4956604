// One-click unsubscribe (RFC 8058): every notice carries a link, and List-Unsubscribe headers, whose
// signed token names the account and the kind. A POST to it turns that kind off at once, with no
// sign-in (mail clients send it themselves); the web app's /unsubscribe page asks first.
import { encodeBase64urlNoPadding } from '@oslojs/encoding';
import { rawSql, runBatch, type Database } from '../../platform/db/client';
import { timingSafeEqual } from '../../platform/password';
import { isNoticeKind, type NoticeMailKind } from '../../platform/vocabulary';

const encoder = new TextEncoder();

async function hmac(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return encodeBase64urlNoPadding(new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(`keypanel-unsubscribe:${message}`))));
}

/** The token of one account's one kind: it turns that kind off, nothing else. */
export const unsubscribeToken = (secret: string, userId: string, kind: NoticeMailKind) => hmac(secret, `${userId}:${kind}`);

/**
 * A notice's two unsubscribe addresses: the page its link opens (which asks first), and the API's
 * one-click address its List-Unsubscribe header names (a mail client POSTs to it).
 */
export async function unsubscribeUrls(appUrl: string, secret: string, userId: string, kind: NoticeMailKind) {
  const query = new URLSearchParams({ u: userId, k: kind, t: await unsubscribeToken(secret, userId, kind) }).toString();
  return { page: `${appUrl}/unsubscribe?${query}`, oneClick: `${appUrl}/api/mail/unsubscribe?${query}` };
}

/** Turns the kind off for the account when the token is theirs; false when it is not (nothing changes). */
export async function unsubscribe(db: Database, secret: string, input: { u: string; k: string; t: string }): Promise<boolean> {
  if (!isNoticeKind(input.k)) return false;
  if (!timingSafeEqual(encoder.encode(await unsubscribeToken(secret, input.u, input.k)), encoder.encode(input.t))) return false;
  const [rows] = await runBatch(db, [
    rawSql(
      `UPDATE users SET mail_opt_outs = (SELECT json_group_array(value) FROM (SELECT value FROM json_each(users.mail_opt_outs) UNION SELECT ?2))
        WHERE id = ?1 RETURNING id`,
      input.u,
      input.k,
    ),
  ]);
  return (rows as unknown[]).length === 1;
}
