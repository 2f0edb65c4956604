// The product card's purchase dialog: pick a duration, see the cost, buy.
import { useState } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { quote } from '../../../../worker/modules/catalog/schemas';
import { Modal, ModalActions } from '../../components/ui/modal';
import { toast } from '../../components/ui/toast';
import { TOAST_PURCHASE_MS } from '../../lib/constants';
import { useCurrentUser } from '../../lib/session';
import { purchaseErrorMessage, useBuyKey } from '../../lib/purchase';
import { DurationPicker } from './DurationPicker';
import { PriceBreakdown } from './PriceBreakdown';
import { asyncHandler } from '../../lib/async-handler';
import { useT } from '../../lib/i18n';
import { formatCredits } from '../../lib/format';

/** Rendered while a product is chosen (keyed by it, so each product opens at its own minimum). */
export function PurchaseModal({ product, onClose }: { product: Schemas['Product']; onClose: () => void }) {
  const t = useT();
  const user = useCurrentUser();
  const purchase = useBuyKey();
  const [days, setDays] = useState(product.minDays);

  const credits = user?.credits ?? 0;
  const total = quote(product, days).total;
  const short = credits < total;

  async function onPurchase() {
    if (!user || short) return;
    try {
      const answer = await purchase.buy(product._id, days);
      toast.success(t('purchase.purchased', { key: answer.licenseKey.key }), TOAST_PURCHASE_MS);
      setDays(product.minDays);
      onClose();
    } catch (err) {
      toast.error(purchaseErrorMessage(err, t('purchase.failed')), TOAST_PURCHASE_MS);
    }
  }

  return (
    <Modal
      open
      title={t('purchase.modalTitle')}
      onClose={onClose}
      busy={purchase.isPending}
      footer={
        <ModalActions
          onCancel={onClose}
          busy={purchase.isPending}
          label={t('purchase.submit')}
          busyLabel={t('purchase.submitting')}
          tone="primary"
          disabled={!user || short}
          onAct={asyncHandler(onPurchase)}
        />
      }
    >
      <p className="purchase-product">
        <strong>{product.name}</strong> <span className="key-tag">{product.keyTag}</span>
      </p>
      <DurationPicker product={product} days={days} onChange={setDays} disabled={purchase.isPending} />
      <PriceBreakdown product={product} days={days} credits={credits} />
      {short && (
        <div className="notice notice-warning" role="status">
          {t('purchase.needMore', { credits: formatCredits(total - credits) })}
        </div>
      )}
    </Modal>
  );
}
