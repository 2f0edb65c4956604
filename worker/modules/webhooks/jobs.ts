// What the app layer runs of the webhooks module: the queue's consumer, and the cron's redispatch of
// events that never reached the queue.
export { handleWebhookBatch, redispatchWebhooks } from './delivery';
