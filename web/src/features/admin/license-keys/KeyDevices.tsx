// A key's devices in its details: the devices activated on it, and the slots of devices that left it
// but may still hold an offline token (each stays taken until it frees). The owner may remove a
// device, or release a held slot at once (accepting that the device may keep working offline until
// its token expires), each after confirming which one. A floating key's devices show their seats:
// the lease its last heartbeat renewed, a borrow, and a release button that frees the seat now.
import { useState } from 'react';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { InlineConfirm } from '../../../components/ui/inline-confirm';
import { toast } from '../../../components/ui/toast';
import { errorMessage } from '../../../lib/api';
import { deviceName, shortFingerprint } from '../../../lib/devices';
import { formatDateTime, formatRelativeTime } from '../../../lib/format';
import { useReleaseHeldSlot, useReleaseSeat, useRemoveActivation } from './api';

type LicenseKey = Schemas['LicenseKey'];

/** A moment still to come (a seat's lease or borrow). */
const isAhead = (at: string | null, now = Date.now()) => at !== null && Date.parse(at) > now;

type Props = { licenseKey: LicenseKey; canManage: boolean; onChanged: (key: LicenseKey) => void };

export function DeviceList({ licenseKey, canManage, onChanged }: Props) {
  const remove = useRemoveActivation();
  const releaseSeat = useReleaseSeat();
  const [confirming, setConfirming] = useState<string | null>(null);
  const floating = licenseKey.activations.some((a) => a.leaseExpiresAt !== null);
  const live = licenseKey.activations.filter((a) => a.leaseExpiresAt === null || isAhead(a.leaseExpiresAt));

  async function onReleaseSeat(activationId: string) {
    try {
      const answer = await releaseSeat.mutateAsync({ keyId: licenseKey._id, activationId });
      toast.success('Seat released; another device can take it now');
      setConfirming(null);
      onChanged(answer.licenseKey);
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to release the seat'));
    }
  }

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
    <>
      {floating && (
        <p className="muted small" data-testid="seats-in-use">
          Seats in use: {live.length} of {licenseKey.maxActivations}
        </p>
      )}
      <ul className="admin-device-list" aria-label={floating ? 'Seats' : 'Activated devices'}>
        {licenseKey.activations.map((a) => {
          const model = deviceName(a);
          const leased = isAhead(a.leaseExpiresAt);
          const borrowed = isAhead(a.borrowedUntil);
          return (
            <li key={a._id}>
              <div className="admin-device-main">
                <code title={a.deviceFingerprint}>{shortFingerprint(a.deviceFingerprint)}</code>
                {model && <span className="muted"> · {model}</span>}
                <div className="muted small">
                  Activated {formatDateTime(a.activatedAt)} · last {a.leaseExpiresAt === null ? 'used' : 'heartbeat'}{' '}
                  {formatRelativeTime(a.lastUsed ?? a.activatedAt)}
                  {a.leaseExpiresAt !== null &&
                    (leased ? ` · seat held until ${formatDateTime(a.leaseExpiresAt)}` : ' · seat free (lease ended)')}
                  {borrowed && ` · borrowed until ${formatDateTime(a.borrowedUntil)}`}
                  {a.replacePendingAt && ' · waiting for its replacement'}
                </div>
              </div>
              {canManage && leased && (
                <InlineConfirm
                  confirming={confirming === `seat:${a._id}`}
                  label="Release seat"
                  ariaLabel={`Release the seat of ${shortFingerprint(a.deviceFingerprint)}`}
                  groupLabel="Confirm seat release"
                  confirmLabel="Confirm release"
                  busyLabel="Releasing…"
                  busy={releaseSeat.isPending}
                  onAsk={() => setConfirming(`seat:${a._id}`)}
                  onKeep={() => setConfirming(null)}
                  onConfirm={() => void onReleaseSeat(a._id)}
                />
              )}
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
    </>
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
