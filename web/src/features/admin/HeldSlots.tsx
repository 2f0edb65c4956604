// Slots of devices that left a key but may still hold an offline token: each stays taken until it
// frees. The owner may release one at once, after confirming, accepting that the device may keep
// working offline until its token expires.
import { useState } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { FINGERPRINT_SHOWN_CHARS } from '../../lib/constants';
import { formatDateTime } from '../../lib/format';
import { useReleaseHeldSlot } from './keys-api';

type LicenseKey = Schemas['LicenseKey'];

const fingerprint = (fp: string) => (fp.length > FINGERPRINT_SHOWN_CHARS ? `${fp.slice(0, FINGERPRINT_SHOWN_CHARS)}…` : fp);

export function HeldSlotList({
  licenseKey,
  canManage,
  onChanged,
}: {
  licenseKey: LicenseKey;
  canManage: boolean;
  onChanged: (key: LicenseKey) => void;
}) {
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
              <code title={h.deviceFingerprint}>{fingerprint(h.deviceFingerprint)}</code>
              <div className="muted small">
                Released {formatDateTime(h.releasedAt)} · frees {formatDateTime(h.freesAt)}
              </div>
            </div>
            {canManage &&
              (confirming === h._id ? (
                <div className="button-row" role="group" aria-label="Confirm slot release">
                  <button
                    type="button"
                    className="btn btn-danger btn-sm"
                    onClick={() => void onRelease(h._id)}
                    disabled={release.isPending}
                  >
                    {release.isPending ? 'Releasing…' : 'Confirm release'}
                  </button>
                  <button
                    type="button"
                    className="btn btn-secondary btn-sm"
                    onClick={() => setConfirming(null)}
                    disabled={release.isPending}
                  >
                    Keep
                  </button>
                </div>
              ) : (
                <button
                  type="button"
                  className="btn btn-secondary btn-sm"
                  aria-label={`Release slot of ${fingerprint(h.deviceFingerprint)} now`}
                  onClick={() => setConfirming(h._id)}
                >
                  Release now
                </button>
              ))}
          </li>
        ))}
      </ul>
    </>
  );
}
