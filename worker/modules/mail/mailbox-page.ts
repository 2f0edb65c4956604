// The local mailbox page (/dev/mailbox, local development only): every mail the local outbox kept,
// newest first, with both parts and the headers, so a developer opens a verification link with no
// setup. Plain HTML, every value escaped; no script, so the app's Content-Security-Policy holds.
import type { OutboxMail } from '../../platform/mail';
import { escapeHtml } from './compose';

/** Links in a mail's text, made clickable (the text is escaped first). */
const linked = (text: string) => escapeHtml(text).replace(/https?:\/\/[^\s<]+/g, (url) => `<a href="${url}">${url}</a>`);

export function mailboxPage(mails: OutboxMail[]): string {
  const items = mails.map(
    (m) => `<article>
  <h2>${escapeHtml(m.subject)}</h2>
  <p>To <strong>${escapeHtml(m.to)}</strong> · ${new Date(m.sentAt).toISOString()}</p>
  <pre>${linked(m.text)}</pre>
  <details><summary>HTML part and headers</summary><pre>${escapeHtml(m.html)}</pre><pre>${escapeHtml(
    Object.entries(m.headers ?? {})
      .map(([name, value]) => `${name}: ${value}`)
      .join('\n'),
  )}</pre></details>
</article>`,
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Local mailbox · KeyPanel</title></head>
<body>
<main>
<h1>Local mailbox</h1>
<p>Every mail this local server sent, newest first (kept for two hours). A deployed KeyPanel has no such page: its mail goes through the mail API.</p>
${items.length ? items.join('\n') : '<p>No mail yet.</p>'}
</main>
</body></html>`;
}
