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
import { useT } from '../../../lib/i18n';
import { useReleaseHeldSlot, useReleaseSeat, useRemoveActivation } from './api';

type LicenseKey = Schemas['LicenseKey'];

/** A moment still to come (a seat's lease or borrow). */
const isAhead = (at: string | null, now = Date.now()) => at !== null && Date.parse(at) > now;

type Props = { licenseKey: LicenseKey; canManage: boolean; onChanged: (key: LicenseKey) => void };

export function DeviceList({ licenseKey, canManage, onChanged }: Props) {
  const remove = useRemoveActivation();
  const releaseSeat = useReleaseSeat();
  const [confirming, setConfirming] = useState<string | null>(null);
  const t = useT();
  const floating = licenseKey.activations.some((a) => a.leaseExpiresAt !== null);
  const live = licenseKey.activations.filter((a) => a.leaseExpiresAt === null || isAhead(a.leaseExpiresAt));

  async function onReleaseSeat(activationId: string) {
    try {
      const answer = await releaseSeat.mutateAsync({ keyId: licenseKey._id, activationId });
      toast.success(t('admin.devices.seatReleased'));
      setConfirming(null);
      onChanged(answer.licenseKey);
    } catch (err) {
      toast.error(errorMessage(err, t('admin.devices.seatReleaseFailed')));
    }
  }

  async function onRemove(activationId: string) {
    try {
      const answer = await remove.mutateAsync({ keyId: licenseKey._id, activationId });
      // Its slot stays held while the device's offline token may live (see Held slots).
      toast.success(t('admin.devices.removed'));
      setConfirming(null);
      onChanged(answer.licenseKey);
    } catch (err) {
      toast.error(errorMessage(err, t('admin.devices.removeFailed')));
    }
  }

  if (licenseKey.activations.length === 0) return <p className="muted">{t('admin.devices.none')}</p>;
  return (
    <>
      {floating && (
        <p className="muted small" data-testid="seats-in-use">
          {t('admin.devices.seatsInUse', { used: live.length, max: licenseKey.maxActivations })}
        </p>
      )}
      <ul className="admin-device-list" aria-label={floating ? t('admin.devices.seats') : t('admin.devices.activated')}>
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
                  {[
                    t('admin.devices.activatedAt', { when: formatDateTime(a.activatedAt) }),
                    t(a.leaseExpiresAt === null ? 'admin.devices.lastUsed' : 'admin.devices.lastHeartbeat', {
                      when: formatRelativeTime(a.lastUsed ?? a.activatedAt),
                    }),
                    a.leaseExpiresAt !== null &&
                      (leased ? t('admin.devices.seatHeldUntil', { when: formatDateTime(a.leaseExpiresAt) }) : t('admin.devices.seatFree')),
                    borrowed && t('admin.devices.borrowedUntil', { when: formatDateTime(a.borrowedUntil) }),
                    a.replacePendingAt && t('admin.devices.waitingReplacement'),
                  ]
                    .filter(Boolean)
                    .join(' · ')}
                </div>
              </div>
              {canManage && leased && (
                <InlineConfirm
                  confirming={confirming === `seat:${a._id}`}
                  label={t('admin.devices.releaseSeat')}
                  ariaLabel={t('admin.devices.releaseSeatOf', { device: shortFingerprint(a.deviceFingerprint) })}
                  groupLabel={t('admin.devices.confirmSeatRelease')}
                  confirmLabel={t('admin.devices.confirmRelease')}
                  busyLabel={t('admin.devices.releasing')}
                  busy={releaseSeat.isPending}
                  onAsk={() => setConfirming(`seat:${a._id}`)}
                  onKeep={() => setConfirming(null)}
                  onConfirm={() => void onReleaseSeat(a._id)}
                />
              )}
              {canManage && (
                <InlineConfirm
                  confirming={confirming === a._id}
                  label={t('admin.devices.remove')}
                  ariaLabel={t('admin.devices.removeDevice', { device: shortFingerprint(a.deviceFingerprint) })}
                  groupLabel={t('admin.devices.confirmRemoval')}
                  confirmLabel={t('admin.devices.confirmRemove')}
                  busyLabel={t('admin.devices.removing')}
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
  const t = useT();
  const slots = licenseKey.heldSlots ?? [];
  if (slots.length === 0) return null;

  async function onRelease(slotId: string) {
    try {
      const answer = await release.mutateAsync({ keyId: licenseKey._id, slotId });
      toast.success(t('admin.devices.slotReleased'));
      setConfirming(null);
      onChanged(answer.licenseKey);
    } catch (err) {
      toast.error(errorMessage(err, t('admin.devices.slotReleaseFailed')));
    }
  }

  return (
    <>
      <h3 className="section-title">{t('admin.devices.heldSlots')}</h3>
      <p className="muted small">{t('admin.devices.heldSlotsHint')}</p>
      <ul className="admin-device-list" aria-label={t('admin.devices.heldSlots')}>
        {slots.map((h) => (
          <li key={h._id}>
            <div className="admin-device-main">
              <code title={h.deviceFingerprint}>{shortFingerprint(h.deviceFingerprint)}</code>
              <div className="muted small">
                {t('admin.devices.releasedFrees', { released: formatDateTime(h.releasedAt), frees: formatDateTime(h.freesAt) })}
              </div>
            </div>
            {canManage && (
              <InlineConfirm
                confirming={confirming === h._id}
                label={t('admin.devices.releaseNow')}
                ariaLabel={t('admin.devices.releaseSlotOf', { device: shortFingerprint(h.deviceFingerprint) })}
                groupLabel={t('admin.devices.confirmSlotRelease')}
                confirmLabel={t('admin.devices.confirmRelease')}
                busyLabel={t('admin.devices.releasing')}
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
