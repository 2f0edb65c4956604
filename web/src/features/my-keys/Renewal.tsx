// Renewing one of the customer's keys: the same key runs for more days, paid with their credits at
// the product's price (shown before confirming), and its auto-renewal from their credits.
import { useState } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { quote } from '../../../../worker/modules/catalog/schemas';
import { DAY_MS } from '../../../../worker/platform/vocabulary';
import { DurationPicker } from '../../components/purchase/DurationPicker';
import { PriceBreakdown } from '../../components/purchase/PriceBreakdown';
import { Modal, ModalActions } from '../../components/ui/modal';
import { toast } from '../../components/ui/toast';
import { asyncHandler } from '../../lib/async-handler';
import { formatCredits, formatDate, formatDateTime } from '../../lib/format';
import { useIdempotencyKey } from '../../lib/idempotency';
import { useProducts } from '../../lib/products';
import { usePublicSettings } from '../../lib/public-settings';
import { purchaseErrorMessage } from '../../lib/purchase';
import { useCurrentUser } from '../../lib/session';
import { errorMessage } from '../../lib/api';
import { useRenewKey, useSetAutoRenew } from './api';
import { useT } from '../../lib/i18n';
import { answerText } from '../../lib/server-words';

type LicenseKey = Schemas['LicenseKey'];

/** A key its customer may renew: in use or expired, with an expiry (not perpetual, not a trial, not revoked). */
export const renewable = (k: LicenseKey) => (k.status === 'used' || k.status === 'expired') && k.expiresAt !== null && !k.trial;

/** The expiry a renewal of `days` gives: from the old one while the key is live, from now once it has passed. */
const renewedExpiry = (expiresAt: string, days: number, now: number) => Math.max(Date.parse(expiresAt), now) + days * DAY_MS;

export function RenewModal({ licenseKey: k, onClose }: { licenseKey: LicenseKey; onClose: () => void }) {
  const t = useT();
  const product = useProducts().data?.find((p) => p._id === k.product._id);
  const user = useCurrentUser();
  const renew = useRenewKey();
  const attempt = useIdempotencyKey();
  const [days, setDays] = useState<number | null>(null);
  // The moment the dialog opened: an expired key's new expiry counts from about then.
  const [openedAt] = useState(() => Date.now());
  const chosen = days ?? product?.minDays ?? 1;
  const credits = user?.credits ?? 0;
  const total = product ? quote(product, chosen).total : null;
  const short = total !== null && credits < total;

  async function onRenew() {
    if (!product || short) return;
    try {
      const answer = await renew.mutateAsync({ keyId: k._id, days: chosen, idempotencyKey: attempt.keyFor(`${k._id}:${chosen}`) });
      attempt.done();
      toast.success(t('renewal.renewed', { key: answer.renewal.key, date: formatDate(answer.renewal.expiresAt) }));
      onClose();
    } catch (err) {
      toast.error(purchaseErrorMessage(err, t('renewal.failed')));
    }
  }

  return (
    <Modal
      open
      title={t('renewal.title')}
      onClose={onClose}
      busy={renew.isPending}
      footer={
        <ModalActions
          onCancel={onClose}
          busy={renew.isPending}
          label={t('keyActions.renew')}
          busyLabel={t('renewal.renewing')}
          tone="primary"
          disabled={!product || short}
          onAct={asyncHandler(onRenew)}
        />
      }
    >
      <p>
        <code>{k.key}</code> {k.status === 'expired' ? t('renewal.bodyFromNow') : t('renewal.bodyFromExpiry')}
      </p>
      {product ? (
        <>
          <DurationPicker product={product} days={chosen} onChange={setDays} disabled={renew.isPending} />
          <PriceBreakdown product={product} days={chosen} credits={credits} />
          <p data-testid="renewed-expiry">{t('renewal.newExpiry', { date: formatDate(renewedExpiry(k.expiresAt!, chosen, openedAt)) })}</p>
          {short && (
            <div className="notice notice-warning" role="status">
              {t('renewal.needMore', { credits: formatCredits(total - credits) })}
            </div>
          )}
        </>
      ) : (
        <div className="notice notice-warning" role="status">
          {t('renewal.notSold', { product: k.product.name })}
        </div>
      )}
    </Modal>
  );
}

/** Auto-renewal: a switch with the days each renewal adds, and the notice when the last one failed. */
export function AutoRenew({ licenseKey: k }: { licenseKey: LicenseKey }) {
  const t = useT();
  const enabled = usePublicSettings().data?.renewals.autoRenewEnabled ?? false;
  const product = useProducts().data?.find((p) => p._id === k.product._id);
  const setAutoRenew = useSetAutoRenew();
  const [days, setDays] = useState(k.autoRenewDays ?? product?.minDays ?? k.duration);
  // The switch shows the server's last answer at once (the key list refetches after); a change from
  // elsewhere (another tab, the CLI) replaces it when the list brings it, during render.
  const [current, setCurrent] = useState(k.autoRenewDays);
  const [seen, setSeen] = useState(k.autoRenewDays);
  if (k.autoRenewDays !== seen) {
    setSeen(k.autoRenewDays);
    setCurrent(k.autoRenewDays);
  }
  const on = current !== null;
  if (!renewable(k) || (!enabled && !on)) return null;
  const idFor = `auto-renew-${k._id}`;

  async function change(next: number | null) {
    const before = current;
    // Shown at once; put back if the server refuses.
    setCurrent(next);
    try {
      const answer = await setAutoRenew.mutateAsync({ keyId: k._id, days: next });
      setCurrent(answer.autoRenewDays);
      toast.success(answerText(answer.message, t('myKeys.autoRenewSaved')));
    } catch (err) {
      setCurrent(before);
      toast.error(errorMessage(err, t('renewal.autoFailed')));
    }
  }

  const price = product ? quote(product, days).total : null;
  return (
    <div className="auto-renew">
      {k.autoRenewFailedAt && (
        <div className="notice notice-error" role="status">
          {t('renewal.autoFailedNotice', { when: formatDateTime(k.autoRenewFailedAt), date: formatDate(k.expiresAt) })}
        </div>
      )}
      <div className="auto-renew-row">
        <input
          id={idFor}
          type="checkbox"
          checked={on}
          disabled={setAutoRenew.isPending || (!enabled && !on)}
          onChange={asyncHandler(() => change(on ? null : days))}
        />
        <label htmlFor={idFor}>{t('renewal.auto')}</label>
        <span className="auto-renew-days">
          <input
            type="number"
            min={product?.minDays ?? 1}
            max={product?.maxDays ?? 3650}
            value={days}
            disabled={on || setAutoRenew.isPending}
            onChange={(e) => setDays(Math.max(1, Math.round(Number(e.target.value) || 1)))}
            aria-label={t('renewal.autoDays')}
          />{' '}
          {t('renewal.daysUnit', { count: days })}
        </span>
      </div>
      {price !== null && (
        <p className="muted">
          {on
            ? t('renewal.autoOn', { days: current, credits: formatCredits(quote(product!, current).total) })
            : t('renewal.autoCost', { credits: formatCredits(price) })}
        </p>
      )}
    </div>
  );
}
