// One of the customer's keys (My License Keys).
import type { Schemas } from '../../../../worker/platform/api-client';
import { Badge, type BadgeTone } from '../../components/ui/badge';
import { CopyButton } from '../../components/ui/copy-button';
import { EXPIRY_WARNING_DAYS } from '../../lib/constants';
import { daysUntil, formatCredits, formatDate, formatDateTime, formatRelativeTime } from '../../lib/format';
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

type KeyStatus = Schemas['KeyStatus'];
type LicenseKey = Schemas['LicenseKey'];

export const STATUS_LABELS: Record<KeyStatus, string> = { used: 'Active', available: 'Available', expired: 'Expired', revoked: 'Revoked' };
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
  if (k.expiryModel === 'perpetual') return 'Never (perpetual)';
  if (!k.expiresAt) return 'At first activation + duration';
  // A perpetual-fallback key's expiry ends its updates: releases from before it keep working.
  return k.expiryModel === 'perpetual-fallback'
    ? `${formatDate(k.expiresAt)} (updates end; earlier releases keep working)`
    : formatDate(k.expiresAt);
}

export function KeyCard({ licenseKey: k }: { licenseKey: LicenseKey }) {
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
        <CopyButton text={k.key} label={`Copy license key ${k.key}`} copiedMessage="License key copied to clipboard" />
      </div>
      {expiringSoon && (
        <div className="notice notice-warning" role="status">
          Expires in {daysLeft} {daysLeft === 1 ? 'day' : 'days'}
        </div>
      )}
      {expired && k.expiryModel === 'perpetual-fallback' && (
        <div className="notice notice-warning" role="status">
          Updates for this license have ended: releases from before {formatDate(k.expiresAt)} keep working. Renew for newer releases.
        </div>
      )}
      {expired && k.expiryModel !== 'perpetual-fallback' && (
        <div className="notice notice-error" role="status">
          This license has expired
          {graceEnd !== null && <> · it keeps working until {formatDateTime(graceEnd)} (grace period)</>}
        </div>
      )}
      {k.status === 'revoked' && (
        <div className="notice notice-error" role="status">
          This license was revoked{k.revokeReason ? `: ${k.revokeReason}` : ''}
        </div>
      )}
      <dl className="key-details">
        <div>
          <dt>Purchased</dt>
          <dd>{formatDate(k.purchasedAt ?? k.createdAt)}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>
            {k.duration} {k.duration === 1 ? 'day' : 'days'}
          </dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>{expiryText(k)}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{formatCredits(k.purchasePrice)} credits</dd>
        </div>
        <div>
          <dt>Type</dt>
          <dd className="capitalize">{k.product.productType}</dd>
        </div>
        {k.usage && (
          <div>
            <dt>Uses left</dt>
            <dd data-testid="uses-left">
              {formatCredits(k.usage.remaining)}
              <RefillNote usage={k.usage} />
            </dd>
          </div>
        )}
        {k.entitlements.length > 0 && (
          <div>
            <dt>Entitlements</dt>
            <dd>
              <EntitlementList names={k.entitlements} />
            </dd>
          </div>
        )}
        <div>
          <dt>Devices</dt>
          <dd>
            {k.activations.length} / {k.maxActivations}
            {k.activations.length > 0 && <span className="muted"> · last used {formatRelativeTime(lastUsed(k))}</span>}
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
        {showHistory ? 'Hide activity' : 'Show activity'}
      </button>
      {/* Always there, so the button's aria-controls names it; its history is read once opened. */}
      <div id={historyId} hidden={!showHistory}>
        {showHistory && <KeyHistory queryKey={myKeysKeys.history(k._id)} load={loadMyKeyHistory(k._id)} />}
      </div>
    </article>
  );
}
