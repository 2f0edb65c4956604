// License Key Management's dialogs: the key's details (with its devices), revoke, delete and
// bulk delete. Reasons are checked with the API's own schemas, so the messages are the server's.
import { useId, useState, type FormEvent } from 'react';
import { bulkDeleteSchema, revokeKeySchema } from '../../../../worker/modules/keys/schemas/admin-keys';
import type { Schemas } from '../../../../worker/platform/api-client';
import { visibleText } from '../../../../worker/platform/schemas/text';
import { Badge } from '../../components/ui/badge';
import { ConfirmModal } from '../../components/ui/confirm-modal';
import { CopyButton } from '../../components/ui/copy-button';
import { FormModal } from '../../components/ui/form-modal';
import { Modal } from '../../components/ui/modal';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { FINGERPRINT_SHOWN_CHARS } from '../../lib/constants';
import { formatCredits, formatDateTime, formatRelativeTime } from '../../lib/format';
import { HeldSlotList } from './HeldSlots';
import { daysLeft, daysTone, KEY_STATUS_LABELS, KEY_STATUS_TONES, shownStatus } from './key-status';
import { useBulkDeleteKeys, useDeleteKey, useRemoveActivation, useRevokeKey } from './keys-api';
import { asyncHandler } from '../../lib/async-handler';

type LicenseKey = Schemas['LicenseKey'];

const plural = (n: number, word: string) => `${formatCredits(n)} ${word}${n === 1 ? '' : 's'}`;
const fingerprint = (fp: string) => (fp.length > FINGERPRINT_SHOWN_CHARS ? `${fp.slice(0, FINGERPRINT_SHOWN_CHARS)}…` : fp);
const METHOD_LABELS: Record<LicenseKey['metadata']['generationMethod'], string> = {
  automatic: 'Generated',
  purchase: 'Bought in the shop',
  reseller: 'Sold by a reseller',
  direct: 'Direct purchase',
};

function Detail({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** The devices of a key; the owner may free a slot, after confirming which device. */
function DeviceList({
  licenseKey,
  canManage,
  onChanged,
}: {
  licenseKey: LicenseKey;
  canManage: boolean;
  onChanged: (key: LicenseKey) => void;
}) {
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
        // What the device's software sent, as sent: control and bidi characters are shown as escapes.
        const model = visibleText([a.deviceInfo?.manufacturer, a.deviceInfo?.model].filter(Boolean).join(' '));
        return (
          <li key={a._id}>
            <div className="admin-device-main">
              <code title={a.deviceFingerprint}>{fingerprint(a.deviceFingerprint)}</code>
              {model && <span className="muted"> · {model}</span>}
              <div className="muted small">
                Activated {formatDateTime(a.activatedAt)} · last used {formatRelativeTime(a.lastUsed ?? a.activatedAt)}
              </div>
            </div>
            {canManage &&
              (confirming === a._id ? (
                <div className="button-row" role="group" aria-label="Confirm device removal">
                  <button type="button" className="btn btn-danger btn-sm" onClick={() => void onRemove(a._id)} disabled={remove.isPending}>
                    {remove.isPending ? 'Removing…' : 'Confirm removal'}
                  </button>
                  <button
                    type="button"
                    className="btn btn-secondary btn-sm"
                    onClick={() => setConfirming(null)}
                    disabled={remove.isPending}
                  >
                    Keep
                  </button>
                </div>
              ) : (
                <button
                  type="button"
                  className="btn btn-secondary btn-sm"
                  aria-label={`Remove device ${fingerprint(a.deviceFingerprint)}`}
                  onClick={() => setConfirming(a._id)}
                >
                  Remove
                </button>
              ))}
          </li>
        );
      })}
    </ul>
  );
}

export function KeyDetailsModal({ licenseKey, canManage, onClose }: { licenseKey: LicenseKey; canManage: boolean; onClose: () => void }) {
  const [key, setKey] = useState(licenseKey);
  const status = shownStatus(key);
  const left = daysLeft(key);
  return (
    <Modal
      open
      title="License Key Details"
      onClose={onClose}
      size="lg"
      footer={
        <button type="button" className="btn btn-secondary" onClick={onClose}>
          Close
        </button>
      }
    >
      <div className="key-box">
        <code>{key.key}</code>
        <CopyButton text={key.key} label={`Copy license key ${key.key}`} copiedMessage="License key copied to clipboard" />
      </div>
      <dl className="key-details admin-key-details">
        <Detail label="Status">
          <Badge tone={KEY_STATUS_TONES[status]}>{KEY_STATUS_LABELS[status]}</Badge>
        </Detail>
        <Detail label="Days remaining">
          {left === null ? (
            <span className="muted">{status === 'available' ? 'Starts at first activation' : '—'}</span>
          ) : (
            <span className={`days-left days-${daysTone(left)}`} data-testid="days-remaining">
              {plural(left, 'day')}
            </span>
          )}
        </Detail>
        <Detail label="Product">
          {key.product.name || 'Unknown Product'} <span className="key-tag">{key.product.keyTag}</span>
        </Detail>
        <Detail label="Type">
          <span className="capitalize">{key.product.productType}</span>
        </Detail>
        <Detail label="Duration">{plural(key.duration, 'day')}</Detail>
        <Detail label="Expires">{key.expiresAt ? formatDateTime(key.expiresAt) : 'At first activation + duration'}</Detail>
        <Detail label="Purchased by">{key.purchasedBy?.username ?? <span className="muted">Not purchased</span>}</Detail>
        <Detail label="Purchased">{formatDateTime(key.purchasedAt)}</Detail>
        <Detail label="Created by">{key.createdBy?.username ?? '—'}</Detail>
        <Detail label="Created">{formatDateTime(key.createdAt)}</Detail>
        <Detail label="Price">{plural(key.purchasePrice, 'credit')}</Detail>
        <Detail label="Origin">{METHOD_LABELS[key.metadata.generationMethod] ?? key.metadata.generationMethod}</Detail>
        <Detail label="First used">{formatDateTime(key.firstUsedAt)}</Detail>
        <Detail label="Devices">
          {key.activations.length} / {key.maxActivations}
          {(key.heldSlots?.length ?? 0) > 0 && <span className="muted"> (+{key.heldSlots.length} held)</span>}
        </Detail>
      </dl>
      {key.status === 'revoked' && (
        <div className="notice notice-error" role="status">
          Revoked{key.revokeReason ? `: ${key.revokeReason}` : ''}
        </div>
      )}
      <h3 className="section-title">Devices</h3>
      <DeviceList licenseKey={key} canManage={canManage} onChanged={setKey} />
      <HeldSlotList licenseKey={key} canManage={canManage} onChanged={setKey} />
    </Modal>
  );
}

function ReasonField({
  id,
  value,
  onChange,
  error,
  label,
}: {
  id: string;
  value: string;
  onChange: (v: string) => void;
  error: string | null;
  label: string;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        rows={3}
        value={value}
        maxLength={500}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        autoFocus
      />
      {error && (
        <div id={`${id}-error`} className="field-error" role="alert">
          {error}
        </div>
      )}
    </div>
  );
}

export function RevokeKeyModal({ licenseKey, onClose }: { licenseKey: LicenseKey; onClose: () => void }) {
  const revoke = useRevokeKey();
  const reasonId = useId();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = revokeKeySchema.safeParse({ reason });
    if (!parsed.success) return setError(parsed.error.issues[0].message);
    setError(null);
    try {
      await revoke.mutateAsync({ id: licenseKey._id, reason: parsed.data.reason });
      toast.success('License key revoked');
      onClose();
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to revoke license key'));
    }
  }

  return (
    <FormModal
      open
      title="Revoke License Key"
      onClose={onClose}
      busy={revoke.isPending}
      formId="revoke-key-form"
      submitLabel="Revoke Key"
      busyLabel="Revoking…"
      tone="danger"
    >
      <form id="revoke-key-form" onSubmit={asyncHandler(onSubmit)} noValidate>
        <p>
          The key <code>{licenseKey.key}</code> stops working on every device at once. This cannot be undone.
        </p>
        <ReasonField id={reasonId} label="Reason for revoking" value={reason} onChange={setReason} error={error} />
      </form>
    </FormModal>
  );
}

export function DeleteKeyModal({ licenseKey, onClose }: { licenseKey: LicenseKey; onClose: () => void }) {
  const remove = useDeleteKey();
  async function onConfirm() {
    try {
      await remove.mutateAsync(licenseKey._id);
      toast.success('License key deleted');
      onClose();
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to delete license key'));
    }
  }
  return (
    <ConfirmModal
      title="Delete License Key"
      confirmLabel="Delete Key"
      busyLabel="Deleting…"
      busy={remove.isPending}
      onConfirm={asyncHandler(onConfirm)}
      onClose={onClose}
    >
      <p>
        Delete <code>{licenseKey.key}</code> ({licenseKey.product.name || 'Unknown Product'}) for good, with its{' '}
        {plural(licenseKey.activations.length, 'device')}?
      </p>
      <p className="muted">The deletion is permanent and recorded in the audit log.</p>
    </ConfirmModal>
  );
}

export function BulkDeleteModal({ keyIds, onClose, onDeleted }: { keyIds: string[]; onClose: () => void; onDeleted: () => void }) {
  const bulk = useBulkDeleteKeys();
  const reasonId = useId();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = bulkDeleteSchema.safeParse({ keyIds, reason });
    if (!parsed.success) return setError(parsed.error.issues[0].message);
    setError(null);
    try {
      const answer = await bulk.mutateAsync({ keyIds: parsed.data.keyIds, reason: parsed.data.reason });
      toast.success(answer.message);
      onDeleted();
      onClose();
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to delete license keys'));
    }
  }

  return (
    <FormModal
      open
      title="Delete Selected Keys"
      onClose={onClose}
      busy={bulk.isPending}
      formId="bulk-delete-form"
      submitLabel={`Delete ${plural(keyIds.length, 'Key')}`}
      busyLabel="Deleting…"
      tone="danger"
      submitDisabled={keyIds.length === 0}
    >
      <form id="bulk-delete-form" onSubmit={asyncHandler(onSubmit)} noValidate>
        <p>
          {plural(keyIds.length, 'selected key')} and their devices will be deleted for good. The deletion is permanent and recorded with
          your reason.
        </p>
        <ReasonField id={reasonId} label="Reason for deleting" value={reason} onChange={setReason} error={error} />
      </form>
    </FormModal>
  );
}
