// Renewing a key from its details: the owner extends any key, free or charged to its customer at
// the product's price; a reseller renews a key they bought for a customer, at their tier's price and
// with their credits. The price shows before confirming; the same key value runs on.
import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { quote } from '../../../../../worker/modules/catalog/schemas';
import { priceForReseller } from '../../../../../worker/modules/resellers/schemas';
import { Field, CheckboxField } from '../../../components/ui/field';
import { toast } from '../../../components/ui/toast';
import { api } from '../../../lib/api';
import { asyncHandler } from '../../../lib/async-handler';
import { formatCredits, formatDateTime } from '../../../lib/format';
import { useIdempotencyKey } from '../../../lib/idempotency';
import { useProducts } from '../../../lib/products';
import { purchaseErrorMessage } from '../../../lib/purchase';
import { useT } from '../../../lib/i18n';
import { useCurrentUser } from '../../../lib/session';
import { useAfterKeyChange } from './api';

type LicenseKey = Schemas['LicenseKey'];

export function KeyRenewal({ licenseKey: k, onChanged }: { licenseKey: LicenseKey; onChanged: (key: LicenseKey) => void }) {
  const me = useCurrentUser();
  const t = useT();
  const isOwner = me?.role === 'owner';
  const mine = k.createdBy?._id === me?._id && k.metadata.generationMethod === 'reseller';
  const product = useProducts().data?.find((p) => p._id === k.product._id);
  const terms = useQuery({
    queryKey: ['admin', 'purchase-terms'],
    queryFn: ({ signal }) => api.get('/api/admin/purchase-terms', undefined, signal),
    enabled: !isOwner,
  });
  const after = useAfterKeyChange();
  const attempt = useIdempotencyKey();
  const [days, setDays] = useState(String(product?.minDays ?? k.duration));
  const [charge, setCharge] = useState(false);
  // The moment the details opened: the new expiry of an expired key counts from about then.
  const [openedAt] = useState(() => Date.now());
  const renew = useMutation({
    mutationFn: (body: { days: number; chargeTo: string | null }) =>
      api.post(`/api/admin/keys/${encodeURIComponent(k._id)}/renew`, body, {
        'Idempotency-Key': attempt.keyFor(`${k._id}:${body.days}:${body.chargeTo}`),
      }),
    onSuccess: after,
  });
  const renewable = (k.status === 'used' || k.status === 'expired') && k.expiresAt !== null && !k.trial && k.expiryModel !== 'perpetual';
  if (!renewable || !(isOwner || mine)) return null;

  const n = Number(days);
  const valid = Number.isInteger(n) && n >= 1;
  const customerId = k.purchasedBy?._id ?? null;
  const charged = isOwner ? charge && customerId !== null : true;
  const price =
    !valid || !charged || !product
      ? 0
      : isOwner
        ? quote(product, n).total
        : terms.data
          ? priceForReseller(product, n, { tier: terms.data.tier, defaultDailyDiscount: terms.data.defaultDailyDiscount }).total
          : null;

  async function onRenew() {
    if (!valid) return;
    try {
      const answer = await renew.mutateAsync({ days: n, chargeTo: isOwner && charge ? customerId : null });
      attempt.done();
      toast.success(t('admin.renewal.done', { key: answer.renewal.key, count: answer.renewal.days }));
      onChanged({ ...k, status: 'used', expiresAt: answer.renewal.expiresAt, autoRenewFailedAt: null });
    } catch (err) {
      toast.error(purchaseErrorMessage(err, t('admin.renewal.failed')));
    }
  }

  return (
    <section className="key-renewal" aria-labelledby={`renew-${k._id}`}>
      <h3 id={`renew-${k._id}`} className="section-title">
        {t('admin.renewal.title')}
      </h3>
      <div className="form-grid">
        <Field
          label={t('admin.renewal.daysToAdd')}
          type="number"
          inputMode="numeric"
          min={1}
          value={days}
          onChange={(e) => setDays(e.target.value)}
          hint={product ? t('admin.renewal.daysHint', { min: product.minDays, max: product.maxDays }) : undefined}
        />
        {isOwner && customerId && (
          <CheckboxField
            label={t('admin.renewal.charge', { username: k.purchasedBy!.username })}
            hint={t('admin.renewal.chargeHint')}
            checked={charge}
            onChange={(e) => setCharge(e.target.checked)}
          />
        )}
      </div>
      <p data-testid="renewal-price">
        {price === null
          ? t('admin.renewal.pricing')
          : price === 0
            ? t('admin.renewal.free')
            : t('admin.renewal.price', { credits: formatCredits(price) })}
        {valid && k.expiresAt && (
          <span className="muted">
            {' '}
            · {t('admin.renewal.newExpiry', { when: formatDateTime(Math.max(Date.parse(k.expiresAt), openedAt) + n * 86_400_000) })}
          </span>
        )}
      </p>
      <button type="button" className="btn btn-primary btn-sm" disabled={!valid || renew.isPending} onClick={asyncHandler(onRenew)}>
        {renew.isPending ? t('admin.renewal.renewing') : t('admin.renewal.submit')}
      </button>
    </section>
  );
}
