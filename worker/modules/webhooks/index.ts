// The webhooks module's public surface: what other modules may use of it. Its routes are mounted by
// worker/app.ts from routes.ts; everything else in the folder is the module's own.
export {
  activationEvent,
  offlineActivationEvent,
  deviceReplacedEvent,
  balanceToppedUpEvent,
  commissionEvent,
  dispatchCommitted,
  exchangeEvent,
  expiringKeyEvents,
  generatedKeysEvent,
  keyEvents,
  renewalEvent,
  usageExhaustedEvent,
  webhookEvents,
} from './outbox';
