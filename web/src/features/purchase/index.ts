// What other features may use from the purchase feature.
export { KEY_PURCHASED_EVENT } from './events';
export { PurchaseModal } from './PurchaseModal';
