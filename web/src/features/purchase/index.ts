// What other features may use from the purchase feature.
export { invalidateAfterPurchase } from './after-purchase';
export { PurchaseModal } from './PurchaseModal';
export { DurationPicker } from './DurationPicker';
export { purchaseErrorMessage } from './api';
export { ReceiptCard } from './ReceiptCard';
