// A key's devices in its details: the devices activated on it, and the slots of devices that left it
// but may still hold an offline token (each stays taken until it frees). The owner may remove a
// device, or release a held slot at once (accepting that the device may keep working offline until
// its token expires), each after confirming which one.
import { useState } from 'react';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { InlineConfirm } from '../../../components/ui/inline-confirm';
import { toast } from '../../../components/ui/toast';
import { errorMessage } from '../../../lib/api';
import { deviceName, shortFingerprint } from '../../../lib/devices';
import { formatDateTime, formatRelativeTime } from '../../../lib/format';
import { useReleaseHeldSlot, useRemoveActivation } from './api';

type LicenseKey = Schemas['LicenseKey'];

type Props = { licenseKey: LicenseKey; canManage: boolean; onChanged: (key: LicenseKey) => void };

export function DeviceList({ licenseKey, canManage, onChanged }: Props) {
  const remove = useRemoveActivation();
  const [confirming, setConfirming] = useState<string | null>(null);

  async function onRemove(activationId: string) {
    try {
      const answer = await remove.mutateAsync({ keyId: licenseKey._id, activationId });
      // Its slot stays held while the device's offline token may live (see Held slots).
      toast.success('Device removed');
      setConfirming(null);
      onChanged(answer.licenseKey);
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to remove the device'));
    }
  }

  if (licenseKey.activations.length === 0) return <p className="muted">No device has activated this key yet.</p>;
  return (
    <ul className="admin-device-list" aria-label="Activated devices">
      {licenseKey.activations.map((a) => {
        const model = deviceName(a);
        return (
          <li key={a._id}>
            <div className="admin-device-main">
              <code title={a.deviceFingerprint}>{shortFingerprint(a.deviceFingerprint)}</code>
              {model && <span className="muted"> · {model}</span>}
              <div className="muted small">
                Activated {formatDateTime(a.activatedAt)} · last used {formatRelativeTime(a.lastUsed ?? a.activatedAt)}
              </div>
            </div>
            {canManage && (
              <InlineConfirm
                confirming={confirming === a._id}
                label="Remove"
                ariaLabel={`Remove device ${shortFingerprint(a.deviceFingerprint)}`}
                groupLabel="Confirm device removal"
                confirmLabel="Confirm removal"
                busyLabel="Removing…"
                busy={remove.isPending}
                onAsk={() => setConfirming(a._id)}
                onKeep={() => setConfirming(null)}
                onConfirm={() => void onRemove(a._id)}
              />
            )}
          </li>
        );
      })}
    </ul>
  );
}

export function HeldSlotList({ licenseKey, canManage, onChanged }: Props) {
  const release = useReleaseHeldSlot();
  const [confirming, setConfirming] = useState<string | null>(null);
  const slots = licenseKey.heldSlots ?? [];
  if (slots.length === 0) return null;

  async function onRelease(slotId: string) {
    try {
      const answer = await release.mutateAsync({ keyId: licenseKey._id, slotId });
      toast.success('Slot released; a new device can take it now');
      setConfirming(null);
      onChanged(answer.licenseKey);
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to release the slot'));
    }
  }

  return (
    <>
      <h3 className="section-title">Held slots</h3>
      <p className="muted small">
        Devices that left this key may keep working offline until their token expires, so their slots stay taken until then.
      </p>
      <ul className="admin-device-list" aria-label="Held slots">
        {slots.map((h) => (
          <li key={h._id}>
            <div className="admin-device-main">
              <code title={h.deviceFingerprint}>{shortFingerprint(h.deviceFingerprint)}</code>
              <div className="muted small">
                Released {formatDateTime(h.releasedAt)} · frees {formatDateTime(h.freesAt)}
              </div>
            </div>
            {canManage && (
              <InlineConfirm
                confirming={confirming === h._id}
                label="Release now"
                ariaLabel={`Release slot of ${shortFingerprint(h.deviceFingerprint)} now`}
                groupLabel="Confirm slot release"
                confirmLabel="Confirm release"
                busyLabel="Releasing…"
                busy={release.isPending}
                onAsk={() => setConfirming(h._id)}
                onKeep={() => setConfirming(null)}
                onConfirm={() => void onRelease(h._id)}
              />
            )}
          </li>
        ))}
      </ul>
    </>
  );
}
