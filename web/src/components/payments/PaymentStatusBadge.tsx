// A payment's state in words and colour, with refunds and disputes marked.
import type { Schemas } from '../../../../worker/platform/api-client';
import { Badge, type BadgeTone } from '../../components/ui/badge';
import { formatUsd } from '../../lib/format';
import { type PaymentStatus } from '../../../../worker/platform/vocabulary';
import { useT } from '../../lib/i18n';
import { translate } from '../../lib/i18n';

/** Each status in the language in force (read when shown, so a change of language follows). */
export const PAYMENT_STATUS_LABELS: Record<PaymentStatus, string> = {
  get pending() {
    return translate('payments.status.pending');
  },
  get paid() {
    return translate('payments.status.paid');
  },
  get refunded() {
    return translate('payments.status.refunded');
  },
  get expired() {
    return translate('payments.status.expired');
  },
  get failed() {
    return translate('payments.status.failed');
  },
};

const TONES: Record<PaymentStatus, BadgeTone> = { pending: 'yellow', paid: 'green', refunded: 'orange', expired: 'gray', failed: 'red' };

export function PaymentStatusBadge({ payment }: { payment: Schemas['Payment'] }) {
  const t = useT();
  const partly = payment.status === 'refunded' && payment.refunded < payment.amount;
  return (
    <span className="user-card-badges">
      <Badge tone={TONES[payment.status]}>
        {partly ? t('payments.status.refundedPart', { amount: formatUsd(payment.refunded) }) : PAYMENT_STATUS_LABELS[payment.status]}
      </Badge>
      {payment.disputed && <Badge tone="red">{t('payments.status.disputed')}</Badge>}
    </span>
  );
}
