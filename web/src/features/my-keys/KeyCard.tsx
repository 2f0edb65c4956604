// One of the customer's keys (My License Keys).
import type { Schemas } from '../../../../worker/platform/api-client';
import { Badge, type BadgeTone } from '../../components/ui/badge';
import { CopyButton } from '../../components/ui/copy-button';
import { EXPIRY_WARNING_DAYS } from '../../lib/constants';
import { daysUntil, formatCredits, formatDate, formatDateTime, formatDays, formatNumber, formatRelativeTime } from '../../lib/format';
import { usePublicSettings } from '../../lib/public-settings';
import { DeviceList } from './DeviceList';
import { KeyActions } from './KeyActions';
import { AutoRenew } from './Renewal';
import { DAY_MS, hasPassed } from '../../../../worker/platform/vocabulary';
import { useState } from 'react';
import { KeyHistory } from '../../components/KeyHistory';
import { EntitlementList, RefillNote } from '../../components/KeyUsage';
import { loadMyKeyHistory } from './api';
import { myKeysKeys } from './query-keys';
import { translate, useT } from '../../lib/i18n';
import { PRODUCT_TYPE_MESSAGES } from '../../components/products/ProductTypeBadge';

type KeyStatus = Schemas['KeyStatus'];
type LicenseKey = Schemas['LicenseKey'];

/** Each status in the language in force (read when shown, so a change of language follows). */
export const STATUS_LABELS: Record<KeyStatus, string> = {
  get used() {
    return translate('myKeys.statusUsed');
  },
  get available() {
    return translate('myKeys.statusAvailable');
  },
  get expired() {
    return translate('myKeys.statusExpired');
  },
  get revoked() {
    return translate('myKeys.statusRevoked');
  },
};
const STATUS_TONES: Record<KeyStatus, BadgeTone> = { used: 'green', available: 'blue', expired: 'gray', revoked: 'red' };

function lastUsed(key: LicenseKey): string | null {
  const times = key.activations.map((a) => a.lastUsed ?? a.activatedAt);
  return times.length ? times.reduce((a, b) => (a > b ? a : b)) : null;
}

/** When an expired key stops working, or null when it has no grace period or it has passed. */
function graceEndsAt(expiresAt: string, graceDays: number, now = Date.now()): number | null {
  const end = new Date(expiresAt).getTime() + graceDays * DAY_MS;
  return graceDays > 0 && !hasPassed(end, now) ? end : null;
}

/** When the key ends, as its licence model says. */
function expiryText(k: LicenseKey): string {
  if (k.expiryModel === 'perpetual') return translate('myKeys.neverPerpetual');
  if (!k.expiresAt) return translate('myKeys.atFirstActivation');
  // A perpetual-fallback key's expiry ends its updates: releases from before it keep working.
  return k.expiryModel === 'perpetual-fallback'
    ? translate('myKeys.updatesEnd', { date: formatDate(k.expiresAt) })
    : formatDate(k.expiresAt);
}

export function KeyCard({ licenseKey: k }: { licenseKey: LicenseKey }) {
  const t = useT();
  const daysLeft = k.expiresAt ? daysUntil(k.expiresAt) : null;
  const expired = k.status === 'expired';
  const graceDays = usePublicSettings().data?.keyExpiryGracePeriod ?? 0;
  const graceEnd = k.expiresAt ? graceEndsAt(k.expiresAt, graceDays) : null;
  const expiringSoon = k.status === 'used' && daysLeft !== null && daysLeft > 0 && daysLeft <= EXPIRY_WARNING_DAYS;
  const headingId = `key-${k._id}`;
  const [showHistory, setShowHistory] = useState(false);
  const historyId = `key-history-${k._id}`;

  return (
    <article className="key-card card" aria-labelledby={headingId}>
      <header className="key-card-header">
        <div>
          <h2 id={headingId} className="product-name">
            {k.product.name}
          </h2>
          <span className="key-tag">{k.product.keyTag}</span>
        </div>
        <Badge tone={STATUS_TONES[k.status]}>{STATUS_LABELS[k.status]}</Badge>
      </header>
      <div className="key-box">
        <code>{k.key}</code>
        <CopyButton text={k.key} label={t('myKeys.copyKey', { key: k.key })} copiedMessage={t('receipt.keyCopied')} />
      </div>
      {expiringSoon && (
        <div className="notice notice-warning" role="status">
          {t('myKeys.expiresIn', { days: daysLeft })}
        </div>
      )}
      {expired && k.expiryModel === 'perpetual-fallback' && (
        <div className="notice notice-warning" role="status">
          {t('myKeys.updatesEnded', { date: formatDate(k.expiresAt) })}
        </div>
      )}
      {expired && k.expiryModel !== 'perpetual-fallback' && (
        <div className="notice notice-error" role="status">
          {t('myKeys.expired')}
          {graceEnd !== null && <> · {t('myKeys.graceUntil', { date: formatDateTime(graceEnd) })}</>}
        </div>
      )}
      {k.status === 'revoked' && (
        <div className="notice notice-error" role="status">
          {k.revokeReason ? t('myKeys.revokedBecause', { reason: k.revokeReason }) : t('myKeys.revoked')}
        </div>
      )}
      <dl className="key-details">
        <div>
          <dt>{t('myKeys.purchased')}</dt>
          <dd>{formatDate(k.purchasedAt ?? k.createdAt)}</dd>
        </div>
        <div>
          <dt>{t('receipt.duration')}</dt>
          <dd>{formatDays(k.duration)}</dd>
        </div>
        <div>
          <dt>{t('myKeys.expires')}</dt>
          <dd>{expiryText(k)}</dd>
        </div>
        <div>
          <dt>{t('receipt.cost')}</dt>
          <dd>{t('common.credits', { credits: formatCredits(k.purchasePrice) })}</dd>
        </div>
        <div>
          <dt>{t('myKeys.type')}</dt>
          <dd className="capitalize">
            {PRODUCT_TYPE_MESSAGES[k.product.productType] ? t(PRODUCT_TYPE_MESSAGES[k.product.productType]) : k.product.productType}
          </dd>
        </div>
        {k.usage && (
          <div>
            <dt>{t('myKeys.usesLeft')}</dt>
            <dd data-testid="uses-left">
              {formatCredits(k.usage.remaining)}
              <RefillNote usage={k.usage} />
            </dd>
          </div>
        )}
        {k.entitlements.length > 0 && (
          <div>
            <dt>{t('keyUsage.entitlements')}</dt>
            <dd>
              <EntitlementList names={k.entitlements} />
            </dd>
          </div>
        )}
        <div>
          <dt>{t('myKeys.devices')}</dt>
          <dd>
            {formatNumber(k.activations.length)} / {formatNumber(k.maxActivations)}
            {k.activations.length > 0 && (
              <span className="muted"> · {t('myKeys.lastUsed', { when: formatRelativeTime(lastUsed(k)) })}</span>
            )}
          </dd>
        </div>
      </dl>
      <AutoRenew licenseKey={k} />
      <DeviceList licenseKey={k} />
      <KeyActions licenseKey={k} />
      <button
        type="button"
        className="link-button key-history-toggle"
        aria-expanded={showHistory}
        aria-controls={historyId}
        onClick={() => setShowHistory((shown) => !shown)}
      >
        {showHistory ? t('myKeys.hideActivity') : t('myKeys.showActivity')}
      </button>
      {/* Always there, so the button's aria-controls names it; its history is read once opened. */}
      <div id={historyId} hidden={!showHistory}>
        {showHistory && <KeyHistory queryKey={myKeysKeys.history(k._id)} load={loadMyKeyHistory(k._id)} />}
      </div>
    </article>
  );
}
