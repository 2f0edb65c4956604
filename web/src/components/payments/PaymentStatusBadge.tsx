// A payment's state in words and colour, with refunds and disputes marked.
import type { Schemas } from '../../../../worker/platform/api-client';
import { Badge, type BadgeTone } from '../../components/ui/badge';
import { formatUsd } from '../../lib/format';
import { type PaymentStatus } from '../../../../worker/platform/vocabulary';

export const PAYMENT_STATUS_LABELS: Record<PaymentStatus, string> = {
  pending: 'Pending',
  paid: 'Paid',
  refunded: 'Refunded',
  expired: 'Expired',
  failed: 'Failed',
};

const TONES: Record<PaymentStatus, BadgeTone> = { pending: 'yellow', paid: 'green', refunded: 'orange', expired: 'gray', failed: 'red' };

export function PaymentStatusBadge({ payment }: { payment: Schemas['Payment'] }) {
  const partly = payment.status === 'refunded' && payment.refunded < payment.amount;
  return (
    <span className="user-card-badges">
      <Badge tone={TONES[payment.status]}>
        {partly ? `Refunded ${formatUsd(payment.refunded)}` : PAYMENT_STATUS_LABELS[payment.status]}
      </Badge>
      {payment.disputed && <Badge tone="red">Disputed</Badge>}
    </span>
  );
}
