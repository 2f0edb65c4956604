// The mail module's public surface: how other modules decide a mail (a statement in their batch, or
// queueMails after a change of their own), and the consumer and jobs the app layer runs.
export {
  autoRenewFailedMail,
  dispatchMails,
  mailStatement,
  mailsFromRows,
  newDeviceMail,
  receiptMail,
  renewalReceiptMail,
  type MailStatement,
  type QueuedMail,
} from './outbox';
export { queueMails } from './queue';
