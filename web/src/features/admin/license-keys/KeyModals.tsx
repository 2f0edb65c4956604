// License Key Management's dialogs: the key's details (with its devices), revoke, delete and
// bulk delete. Reasons are checked with the API's own schemas, so the messages are the server's.
import { useState } from 'react';
import { bulkDeleteSchema, revokeKeySchema } from '../../../../../worker/modules/keys/schemas/admin-keys';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { Badge } from '../../../components/ui/badge';
import { ConfirmModal } from '../../../components/ui/confirm-modal';
import { CopyButton } from '../../../components/ui/copy-button';
import { Detail } from '../../../components/ui/detail';
import { TextAreaField } from '../../../components/ui/field';
import { FormModal } from '../../../components/ui/form-modal';
import { Modal } from '../../../components/ui/modal';
import { toast } from '../../../components/ui/toast';
import { errorMessage } from '../../../lib/api';
import { schemaErrors, useForm } from '../../../lib/form';
import { formatCredits, formatDateTime } from '../../../lib/format';
import { DeviceList, HeldSlotList } from './KeyDevices';
import { KeyUsage } from './KeyUsage';
import { KeyRenewal } from './KeyRenewal';
import { daysLeft, daysTone, KEY_STATUS_LABELS, KEY_STATUS_TONES, shownStatus } from './key-status';
import { licenseKeys, loadKeyHistory, useBulkDeleteKeys, useDeleteKey, useRevokeKey } from './api';
import { KeyHistory } from '../../../components/KeyHistory';
import { asyncHandler } from '../../../lib/async-handler';

type LicenseKey = Schemas['LicenseKey'];

const plural = (n: number, word: string) => `${formatCredits(n)} ${word}${n === 1 ? '' : 's'}`;
const METHOD_LABELS: Record<LicenseKey['metadata']['generationMethod'], string> = {
  automatic: 'Generated',
  purchase: 'Bought in the shop',
  reseller: 'Sold by a reseller',
  direct: 'Direct purchase',
};

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
        <Detail label="Expires">
          {key.expiryModel === 'perpetual'
            ? 'Never (perpetual)'
            : key.expiresAt
              ? formatDateTime(key.expiresAt)
              : 'At first activation + duration'}
        </Detail>
        <Detail label="Auto-renewal">
          {key.autoRenewDays === null ? 'Off' : `${plural(key.autoRenewDays, 'day')} at a time`}
          {key.autoRenewFailedAt && <span className="muted"> · failed {formatDateTime(key.autoRenewFailedAt)}</span>}
        </Detail>
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
      <KeyUsage licenseKey={key} canManage={canManage} onChanged={setKey} />
      <KeyRenewal licenseKey={key} onChanged={setKey} />
      <KeyHistory queryKey={licenseKeys.history(key._id)} load={loadKeyHistory(key._id)} />
    </Modal>
  );
}

export function RevokeKeyModal({ licenseKey, onClose }: { licenseKey: LicenseKey; onClose: () => void }) {
  const revoke = useRevokeKey();
  const form = useForm({
    initial: { reason: '' },
    validate: (v) => schemaErrors(revokeKeySchema, v),
    submit: async (v) => {
      await revoke.mutateAsync({ id: licenseKey._id, reason: revokeKeySchema.parse(v).reason });
      toast.success('License key revoked');
      onClose();
    },
    onError: (err) => {
      toast.error(errorMessage(err, 'Failed to revoke license key'));
      return null;
    },
  });

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
      <form id="revoke-key-form" onSubmit={form.onSubmit} noValidate>
        <p>
          The key <code>{licenseKey.key}</code> stops working on every device at once. This cannot be undone.
        </p>
        <TextAreaField label="Reason for revoking" rows={3} maxLength={500} {...form.field('reason')} autoFocus />
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
  const form = useForm({
    initial: { reason: '' },
    validate: ({ reason }) => {
      const errors = schemaErrors<{ keyIds: string; reason: string }>(bulkDeleteSchema, { keyIds, reason });
      // A refusal of the selection (too many keys) shows where the owner is typing, before the reason's.
      const first = errors.keyIds ?? errors.reason;
      return first ? { reason: first } : {};
    },
    submit: async ({ reason }) => {
      const answer = await bulk.mutateAsync(bulkDeleteSchema.parse({ keyIds, reason }));
      toast.success(answer.message);
      onDeleted();
      onClose();
    },
    onError: (err) => {
      toast.error(errorMessage(err, 'Failed to delete license keys'));
      return null;
    },
  });

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
      <form id="bulk-delete-form" onSubmit={form.onSubmit} noValidate>
        <p>
          {plural(keyIds.length, 'selected key')} and their devices will be deleted for good. The deletion is permanent and recorded with
          your reason.
        </p>
        <TextAreaField label="Reason for deleting" rows={3} maxLength={500} {...form.field('reason')} autoFocus />
      </form>
    </FormModal>
  );
}
