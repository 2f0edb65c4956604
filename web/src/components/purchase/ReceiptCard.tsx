// The card after a purchase: product, duration, expiry, cost, and the key with a copy button.
import { useId, type ReactNode } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { CopyButton } from '../../components/ui/copy-button';
import { formatCredits, formatDateTime, formatDays } from '../../lib/format';
import { useT } from '../../lib/i18n';

type Props = { receipt: Schemas['PurchaseReceipt']; title: string; note: ReactNode; dismissLabel: string; onDismiss: () => void };

export function ReceiptCard({ receipt, title, note, dismissLabel, onDismiss }: Props) {
  const headingId = useId();
  const t = useT();
  return (
    <section className="card success-card" aria-labelledby={headingId} role="status">
      <h2 id={headingId}>{title}</h2>
      <dl className="receipt">
        <div>
          <dt>{t('receipt.product')}</dt>
          <dd>{receipt.product}</dd>
        </div>
        <div>
          <dt>{t('receipt.duration')}</dt>
          <dd>{formatDays(receipt.duration)}</dd>
        </div>
        <div>
          <dt>{t('receipt.expiryDate')}</dt>
          <dd>{formatDateTime(receipt.expiryDate)}</dd>
        </div>
        <div>
          <dt>{t('receipt.cost')}</dt>
          <dd>{t('common.credits', { credits: formatCredits(receipt.cost) })}</dd>
        </div>
      </dl>
      <div className="key-box">
        <code data-testid="purchased-key">{receipt.key}</code>
        <CopyButton text={receipt.key} label={t('receipt.copyKey')} copiedMessage={t('receipt.keyCopied')} />
      </div>
      <p className="muted">{note}</p>
      <button type="button" className="btn btn-secondary btn-sm" onClick={onDismiss}>
        {dismissLabel}
      </button>
    </section>
  );
}
