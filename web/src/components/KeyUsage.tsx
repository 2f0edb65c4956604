// What a key may do and has left, read alike in My Keys and in the owner's key details: its
// entitlements as a list of badges, and when a metered key's uses are next refilled.
import type { Schemas } from '../../../worker/platform/api-client';
import { formatCredits, formatDateTime } from '../lib/format';
import { useT } from '../lib/i18n';
import { Badge } from './ui/badge';

type LicenseUsage = NonNullable<Schemas['LicenseKey']['usage']>;

/** A key's entitlements, each a badge as its product's owner wrote it. */
export function EntitlementList({ names }: { names: string[] }) {
  const t = useT();
  return (
    <ul className="entitlement-list" aria-label={t('keyUsage.entitlements')}>
      {names.map((name) => (
        <li key={name}>
          <Badge tone="blue" asWritten>
            {name}
          </Badge>
        </li>
      ))}
    </ul>
  );
}

/** " · refills to N on <date>" after a metered key's uses left, when it refills at all. */
export function RefillNote({ usage }: { usage: LicenseUsage }) {
  const t = useT();
  if (!usage.nextRefillAt) return null;
  return (
    <span className="muted">
      {' '}
      · {t('keyUsage.refillsTo', { amount: formatCredits(usage.refillAmount ?? 0), date: formatDateTime(usage.nextRefillAt) })}
    </span>
  );
}
