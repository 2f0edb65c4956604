// What other features may use from the purchase feature.
export { KEY_PURCHASED_EVENT } from './events';
export { PurchaseModal } from './PurchaseModal';
export { DurationPicker } from './DurationPicker';
export { purchaseErrorMessage } from './api';
export { ReceiptCard } from './ReceiptCard';
