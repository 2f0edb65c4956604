// Deciding mails outside a batch of one's own: written in one batch (with whatever else must commit
// with them), then put on the queue after the answer.
import { runBatch, type Database, type Statement } from '../../platform/db/client';
import { dispatchMails, mailStatement, type QueuedMail } from './outbox';

/** Writes the mails (with `alongside`, all or nothing) and puts them on the queue once committed. */
export async function queueMails(db: Database, mails: QueuedMail[], now = Date.now(), alongside: Statement[] = []): Promise<unknown[]> {
  const results = await runBatch(db, [...alongside, ...mails.map((mail) => mailStatement(mail, now))]);
  await dispatchMails(results, db);
  return results;
}
