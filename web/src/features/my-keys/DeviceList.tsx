// The devices a key is activated on, each removable by the key's owner (once a day per key).
import { useState } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { ConfirmModal } from '../../components/ui/confirm-modal';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { DEVICES_SHOWN } from '../../lib/constants';
import { deviceName, shortFingerprint } from '../../lib/devices';
import { formatDateTime, formatRelativeTime } from '../../lib/format';
import { useRemoveDevice } from './api';
import { asyncHandler } from '../../lib/async-handler';

type LicenseKey = Schemas['LicenseKey'];

type Device = LicenseKey['activations'][number];

export function DeviceList({ licenseKey: k }: { licenseKey: LicenseKey }) {
  const [removing, setRemoving] = useState<Device | null>(null);
  const remove = useRemoveDevice();
  const devices = k.activations.slice(0, DEVICES_SHOWN);
  const held = k.heldSlots ?? [];
  if (devices.length === 0 && held.length === 0) return null;

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
              </span>
              <button
                type="button"
                className="btn btn-secondary btn-sm"
                onClick={() => setRemoving(a)}
                aria-label={`Remove device ${shortFingerprint(a.deviceFingerprint)}`}
              >
                Remove
              </button>
            </li>
          ))}
          {k.activations.length > DEVICES_SHOWN && <li className="muted">+{k.activations.length - DEVICES_SHOWN} more</li>}
        </ul>
      )}
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
