// What the webhook queue carries (its binding's type in env.ts; the outbox sends it, the consumer reads it).

/** An event to fan out to its endpoints, or one delivery to attempt. */
export type WebhookMessage = { kind: 'event'; eventId: string } | { kind: 'delivery'; deliveryId: string };

/** The queue's producer, as far as senders use it (the Worker's binding; tests' stand-ins). */
export type WebhookQueue = { sendBatch(messages: Array<{ body: WebhookMessage }>): Promise<unknown> };
