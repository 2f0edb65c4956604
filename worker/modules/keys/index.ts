// The keys module's public surface: what other modules may use of it. Its routes are mounted by
// worker/app.ts from routes.ts; everything else in the folder is the module's own.
export { countedKeysByStatus, keyCountsTotal, keysByStatus, readCountedJson, shopKeyCountsJson, type KeyCounts } from './key-counts';
export { generateLicenseKey, keysJsonStatement, NEWEST_FIRST } from './license-keys';
export { insufficientCredits, PURCHASE_STATUS, purchaseKey } from './purchase';
export { purchaseReceipt } from './receipts';
export { listPrice, notRenewable, readRenewalKey, renewalProduct, RENEWAL_STATUS, renewKey, type RenewalKey } from './renewal';
