// The devices a key is activated on (a floating key's with their seat leases), each removable by the
// key's owner (once a day per key) or replaceable: the next new device that activates the key takes
// its place. Both count against the product's swap budget, shown with what is left.
import { useState } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { ConfirmModal } from '../../components/ui/confirm-modal';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { DEVICES_SHOWN } from '../../lib/constants';
import { deviceName, shortFingerprint } from '../../lib/devices';
import { formatDateTime, formatRelativeTime } from '../../lib/format';
import { useKeySwaps, useRemoveDevice, useReplaceDevice } from './api';
import { asyncHandler } from '../../lib/async-handler';
import { translate, useT } from '../../lib/i18n';
import { answerText } from '../../lib/server-words';

type LicenseKey = Schemas['LicenseKey'];

type Device = LicenseKey['activations'][number];

/** What the device holds now: a floating seat's lease or borrow, or a pending replacement. */
function seatState(a: Device, now = Date.now()): string | null {
  if (a.replacePendingAt) return translate('devices.waitingReplacement');
  if (a.borrowedUntil && Date.parse(a.borrowedUntil) > now)
    return translate('devices.seatBorrowed', { date: formatDateTime(a.borrowedUntil) });
  if (a.leaseExpiresAt === null) return null;
  return Date.parse(a.leaseExpiresAt) > now
    ? translate('devices.seatHeld', { date: formatDateTime(a.leaseExpiresAt) })
    : translate('devices.seatFree');
}

/** The key's swap budget in words: left of how many, and when the next comes when none are. */
function SwapsLeft({ keyId }: { keyId: string }) {
  const t = useT();
  const swaps = useKeySwaps(keyId);
  if (swaps.isPending)
    return (
      <p className="muted small" aria-live="polite">
        {t('devices.swapsLoading')}
      </p>
    );
  if (swaps.isError) return <p className="muted small">{t('devices.swapsFailed')}</p>;
  const s = swaps.data;
  if (s.swapLimit === null) return null;
  const text =
    s.swapsLeft && s.swapsLeft > 0
      ? t('devices.swapsLeft', { left: s.swapsLeft, limit: s.swapLimit, days: s.swapWindowDays })
      : s.nextSwapAt
        ? t('devices.noSwapsLeft', { date: formatDateTime(s.nextSwapAt) })
        : t('devices.noSwaps');
  return (
    <p className="muted small" data-testid="swaps-left">
      {text}
    </p>
  );
}

export function DeviceList({ licenseKey: k }: { licenseKey: LicenseKey }) {
  const t = useT();
  const [removing, setRemoving] = useState<Device | null>(null);
  const [replacing, setReplacing] = useState<Device | null>(null);
  const remove = useRemoveDevice();
  const replace = useReplaceDevice();
  const devices = k.activations.slice(0, DEVICES_SHOWN);
  const held = k.heldSlots ?? [];
  if (devices.length === 0 && held.length === 0) return null;

  async function confirmReplace() {
    if (!replacing) return;
    try {
      const answer = await replace.mutateAsync({ keyId: k._id, activationId: replacing._id });
      toast.success(answer.swapsLeft === null ? t('devices.replaced') : t('devices.replacedWithLeft', { count: answer.swapsLeft }));
    } catch (err) {
      toast.error(errorMessage(err, t('devices.replaceFailed')));
    } finally {
      setReplacing(null);
    }
  }

  async function confirmRemove() {
    if (!removing) return;
    try {
      const answer = await remove.mutateAsync({ keyId: k._id, activationId: removing._id });
      toast.success(
        answer.slotFreesAt
          ? t('devices.removedSlotFrees', { date: formatDateTime(answer.slotFreesAt) })
          : answerText(answer.message, t('devices.removed')),
      );
    } catch (err) {
      toast.error(errorMessage(err, t('devices.removeFailed')));
    } finally {
      setRemoving(null);
    }
  }

  return (
    <>
      {devices.length > 0 && (
        <ul className="device-list" aria-label={t('devices.activated')}>
          {devices.map((a) => (
            <li key={a._id}>
              <span>
                <code title={t('devices.fingerprint')}>{shortFingerprint(a.deviceFingerprint)}</code>
                {deviceName(a) && <span className="muted"> {deviceName(a)}</span>}
                <span className="muted"> · {t('devices.activatedWhen', { when: formatRelativeTime(a.activatedAt) })}</span>
                {seatState(a) && <span className="muted"> · {seatState(a)}</span>}
              </span>
              <span className="device-actions">
                <button
                  type="button"
                  className="btn btn-secondary btn-sm"
                  onClick={() => setReplacing(a)}
                  disabled={a.replacePendingAt !== null}
                  aria-label={t('devices.replaceLabel', { device: shortFingerprint(a.deviceFingerprint) })}
                >
                  {t('devices.replace')}
                </button>
                <button
                  type="button"
                  className="btn btn-secondary btn-sm"
                  onClick={() => setRemoving(a)}
                  aria-label={t('devices.removeLabel', { device: shortFingerprint(a.deviceFingerprint) })}
                >
                  {t('devices.remove')}
                </button>
              </span>
            </li>
          ))}
          {k.activations.length > DEVICES_SHOWN && (
            <li className="muted">{t('devices.more', { count: k.activations.length - DEVICES_SHOWN })}</li>
          )}
        </ul>
      )}
      <SwapsLeft keyId={k._id} />
      {held.length > 0 && (
        // A removed device may keep working offline until its token expires: its slot is taken until then.
        <ul className="device-list" aria-label={t('devices.heldSlots')}>
          {held.map((h) => (
            <li key={h._id} className="muted">
              <span>
                <code title={t('devices.fingerprint')}>{shortFingerprint(h.deviceFingerprint)}</code>{' '}
                {t('devices.heldFrees', { date: formatDateTime(h.freesAt) })}
              </span>
            </li>
          ))}
        </ul>
      )}
      {replacing && (
        <ConfirmModal
          title={t('devices.replaceTitle')}
          confirmLabel={t('devices.replaceConfirm')}
          busyLabel={t('devices.replacing')}
          busy={replace.isPending}
          onConfirm={asyncHandler(confirmReplace)}
          onClose={() => setReplacing(null)}
        >
          <p>
            <code>{shortFingerprint(replacing.deviceFingerprint)}</code> {t('devices.replaceBody')}
          </p>
        </ConfirmModal>
      )}
      {removing && (
        <ConfirmModal
          title={t('devices.removeTitle')}
          confirmLabel={t('devices.removeConfirm')}
          busyLabel={t('devices.removing')}
          busy={remove.isPending}
          onConfirm={asyncHandler(confirmRemove)}
          onClose={() => setRemoving(null)}
        >
          <p>
            <code>{shortFingerprint(removing.deviceFingerprint)}</code> {t('devices.removeBody')}
          </p>
        </ConfirmModal>
      )}
    </>
  );
}
