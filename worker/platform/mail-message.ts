// What the mail queue carries (its binding's type in env.ts; modules/mail sends and consumes it).

/** A mail to send: its row, which the consumer writes into words for its recipient as they are then. */
export type MailMessage = { mailId: string };

/** The queue's producer, as far as senders use it (the Worker's binding; tests' stand-ins). */
export type MailQueue = { sendBatch(messages: Array<{ body: MailMessage }>): Promise<unknown> };
