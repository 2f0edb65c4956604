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

type LicenseKey = Schemas['LicenseKey'];

type Device = LicenseKey['activations'][number];

/** What the device holds now: a floating seat's lease or borrow, or a pending replacement. */
function seatState(a: Device, now = Date.now()): string | null {
  if (a.replacePendingAt) return 'waiting for its replacement';
  if (a.borrowedUntil && Date.parse(a.borrowedUntil) > now) return `seat borrowed until ${formatDateTime(a.borrowedUntil)}`;
  if (a.leaseExpiresAt === null) return null;
  return Date.parse(a.leaseExpiresAt) > now ? `seat held until ${formatDateTime(a.leaseExpiresAt)}` : 'seat free (no heartbeat)';
}

/** The key's swap budget in words: left of how many, and when the next comes when none are. */
function SwapsLeft({ keyId }: { keyId: string }) {
  const swaps = useKeySwaps(keyId);
  if (swaps.isPending)
    return (
      <p className="muted small" aria-live="polite">
        Loading device swaps…
      </p>
    );
  if (swaps.isError) return <p className="muted small">Device swaps could not be loaded.</p>;
  const s = swaps.data;
  if (s.swapLimit === null) return null;
  const text =
    s.swapsLeft && s.swapsLeft > 0
      ? `${s.swapsLeft} of ${s.swapLimit} device swaps left in ${s.swapWindowDays} days`
      : s.nextSwapAt
        ? `No device swaps left; the next is allowed ${formatDateTime(s.nextSwapAt)}`
        : 'Devices of this key cannot be swapped';
  return (
    <p className="muted small" data-testid="swaps-left">
      {text}
    </p>
  );
}

export function DeviceList({ licenseKey: k }: { licenseKey: LicenseKey }) {
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
      const left = answer.swapsLeft === null ? '' : ` ${answer.swapsLeft} swap${answer.swapsLeft === 1 ? '' : 's'} left.`;
      toast.success(`The next new device that activates this key takes this one's place.${left}`);
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to replace the device'));
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
          ? `Device removed. Its slot frees ${formatDateTime(answer.slotFreesAt)}, once any offline token it holds has expired.`
          : answer.message,
      );
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to remove the device'));
    } finally {
      setRemoving(null);
    }
  }

  return (
    <>
      {devices.length > 0 && (
        <ul className="device-list" aria-label="Activated devices">
          {devices.map((a) => (
            <li key={a._id}>
              <span>
                <code title="Device fingerprint">{shortFingerprint(a.deviceFingerprint)}</code>
                {deviceName(a) && <span className="muted"> {deviceName(a)}</span>}
                <span className="muted"> · activated {formatRelativeTime(a.activatedAt)}</span>
                {seatState(a) && <span className="muted"> · {seatState(a)}</span>}
              </span>
              <span className="device-actions">
                <button
                  type="button"
                  className="btn btn-secondary btn-sm"
                  onClick={() => setReplacing(a)}
                  disabled={a.replacePendingAt !== null}
                  aria-label={`Replace device ${shortFingerprint(a.deviceFingerprint)}`}
                >
                  Replace
                </button>
                <button
                  type="button"
                  className="btn btn-secondary btn-sm"
                  onClick={() => setRemoving(a)}
                  aria-label={`Remove device ${shortFingerprint(a.deviceFingerprint)}`}
                >
                  Remove
                </button>
              </span>
            </li>
          ))}
          {k.activations.length > DEVICES_SHOWN && <li className="muted">+{k.activations.length - DEVICES_SHOWN} more</li>}
        </ul>
      )}
      <SwapsLeft keyId={k._id} />
      {held.length > 0 && (
        // A removed device may keep working offline until its token expires: its slot is taken until then.
        <ul className="device-list" aria-label="Held slots">
          {held.map((h) => (
            <li key={h._id} className="muted">
              <span>
                <code title="Device fingerprint">{shortFingerprint(h.deviceFingerprint)}</code> removed · its slot frees{' '}
                {formatDateTime(h.freesAt)}
              </span>
            </li>
          ))}
        </ul>
      )}
      {replacing && (
        <ConfirmModal
          title="Replace this device?"
          confirmLabel="Replace device"
          busyLabel="Replacing…"
          busy={replace.isPending}
          onConfirm={asyncHandler(confirmReplace)}
          onClose={() => setReplacing(null)}
        >
          <p>
            <code>{shortFingerprint(replacing.deviceFingerprint)}</code> keeps working until you activate this key on your new device: the
            new device then takes its place at once. This uses one device swap.
          </p>
        </ConfirmModal>
      )}
      {removing && (
        <ConfirmModal
          title="Remove this device?"
          confirmLabel="Remove device"
          busyLabel="Removing…"
          busy={remove.isPending}
          onConfirm={asyncHandler(confirmRemove)}
          onClose={() => setRemoving(null)}
        >
          <p>
            <code>{shortFingerprint(removing.deviceFingerprint)}</code> will stop working with this key once it is back online. Its slot
            stays taken until the offline token it may hold has expired, then another device can use it. You can remove one device from a
            key each day.
          </p>
        </ConfirmModal>
      )}
    </>
  );
}
