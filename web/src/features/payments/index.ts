// What other features may use from the payments feature.
export { PAYMENT_STATUS_LABELS, PaymentStatusBadge } from './PaymentStatusBadge';
