// A purchase's receipt mail: the key, its product, days, price and expiry, to the account it is for.
import { receiptMail } from '../mail';
import type { PurchaseReceipt } from './schemas/answers';

export const purchaseReceipt = (buyerId: string, receipt: PurchaseReceipt, now: number) =>
  receiptMail(
    buyerId,
    {
      keyId: receipt._id,
      key: receipt.key,
      product: receipt.product,
      days: receipt.duration,
      cost: receipt.cost,
      expiresAt: receipt.expiryDate,
      action: 'purchase',
    },
    now,
    `receipt:purchase:${receipt._id}`,
  );
