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
import { useForm } from '../../../lib/form';
import { adminSchemaErrors } from '../schema-messages';
import { formatCredits, formatDateTime } from '../../../lib/format';
import { DeviceList, HeldSlotList } from './KeyDevices';
import { KeyUsage } from './KeyUsage';
import { KeyRenewal } from './KeyRenewal';
import { daysLeft, daysTone, KEY_STATUS_LABELS, KEY_STATUS_TONES, shownStatus } from './key-status';
import { licenseKeys, loadKeyHistory, useBulkDeleteKeys, useDeleteKey, useRevokeKey } from './api';
import { KeyHistory } from '../../../components/KeyHistory';
import { FormattedMessage } from 'react-intl';
import { asyncHandler } from '../../../lib/async-handler';
import { useT, type MessageId } from '../../../lib/i18n';

type LicenseKey = Schemas['LicenseKey'];

const METHOD_LABELS: Record<LicenseKey['metadata']['generationMethod'], MessageId> = {
  automatic: 'admin.keys.origin.automatic',
  purchase: 'admin.keys.origin.purchase',
  reseller: 'admin.keys.origin.reseller',
  direct: 'admin.keys.origin.direct',
};

export function KeyDetailsModal({ licenseKey, canManage, onClose }: { licenseKey: LicenseKey; canManage: boolean; onClose: () => void }) {
  const [key, setKey] = useState(licenseKey);
  const t = useT();
  const status = shownStatus(key);
  const left = daysLeft(key);
  return (
    <Modal
      open
      title={t('admin.keys.detailsTitle')}
      onClose={onClose}
      size="lg"
      footer={
        <button type="button" className="btn btn-secondary" onClick={onClose}>
          {t('admin.keys.close')}
        </button>
      }
    >
      <div className="key-box">
        <code>{key.key}</code>
        <CopyButton text={key.key} label={t('admin.keys.copy', { key: key.key })} copiedMessage={t('admin.keys.copied')} />
      </div>
      <dl className="key-details admin-key-details">
        <Detail label={t('admin.keys.status')}>
          <Badge tone={KEY_STATUS_TONES[status]}>{t(KEY_STATUS_LABELS[status])}</Badge>
        </Detail>
        <Detail label={t('admin.keys.daysRemaining')}>
          {left === null ? (
            <span className="muted">{status === 'available' ? t('admin.keys.startsAtActivation') : '—'}</span>
          ) : (
            <span className={`days-left days-${daysTone(left)}`} data-testid="days-remaining">
              {t('admin.keys.days', { count: left })}
            </span>
          )}
        </Detail>
        <Detail label={t('admin.keys.product')}>
          {key.product.name || t('admin.keys.unknownProduct')} <span className="key-tag">{key.product.keyTag}</span>
        </Detail>
        <Detail label={t('admin.keys.type')}>
          <span className="capitalize">{key.product.productType}</span>
        </Detail>
        <Detail label={t('admin.keys.duration')}>{t('admin.keys.days', { count: key.duration })}</Detail>
        <Detail label={t('admin.keys.expires')}>
          {key.expiryModel === 'perpetual'
            ? t('admin.keys.neverPerpetual')
            : key.expiresAt
              ? formatDateTime(key.expiresAt)
              : t('admin.keys.atFirstActivation')}
        </Detail>
        <Detail label={t('admin.keys.autoRenewal')}>
          {key.autoRenewDays === null ? t('admin.keys.autoRenewOff') : t('admin.keys.autoRenewDays', { count: key.autoRenewDays })}
          {key.autoRenewFailedAt && (
            <span className="muted"> · {t('admin.keys.autoRenewFailed', { when: formatDateTime(key.autoRenewFailedAt) })}</span>
          )}
        </Detail>
        <Detail label={t('admin.keys.purchasedBy')}>
          {key.purchasedBy?.username ?? <span className="muted">{t('admin.keys.notPurchased')}</span>}
        </Detail>
        <Detail label={t('admin.keys.purchased')}>{formatDateTime(key.purchasedAt)}</Detail>
        <Detail label={t('admin.keys.createdBy')}>{key.createdBy?.username ?? '—'}</Detail>
        <Detail label={t('admin.keys.created')}>{formatDateTime(key.createdAt)}</Detail>
        <Detail label={t('admin.keys.price')}>{t('admin.keys.credits', { count: key.purchasePrice })}</Detail>
        <Detail label={t('admin.keys.origin')}>
          {key.metadata.generationMethod in METHOD_LABELS ? t(METHOD_LABELS[key.metadata.generationMethod]) : key.metadata.generationMethod}
        </Detail>
        <Detail label={t('admin.keys.firstUsed')}>{formatDateTime(key.firstUsedAt)}</Detail>
        <Detail label={t('admin.keys.devices')}>
          {t('admin.keys.devicesOf', { used: formatCredits(key.activations.length), max: formatCredits(key.maxActivations) })}
          {(key.heldSlots?.length ?? 0) > 0 && <span className="muted"> {t('admin.keys.held', { count: key.heldSlots.length })}</span>}
        </Detail>
      </dl>
      {key.status === 'revoked' && (
        <div className="notice notice-error" role="status">
          {key.revokeReason ? t('admin.keys.revokedBecause', { reason: key.revokeReason }) : t('admin.keys.revoked')}
        </div>
      )}
      <h3 className="section-title">{t('admin.keys.devices')}</h3>
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
  const t = useT();
  const form = useForm({
    initial: { reason: '' },
    validate: (v) => adminSchemaErrors(revokeKeySchema, v),
    submit: async (v) => {
      await revoke.mutateAsync({ id: licenseKey._id, reason: revokeKeySchema.parse(v).reason });
      toast.success(t('admin.keys.revokeDone'));
      onClose();
    },
    onError: (err) => {
      toast.error(errorMessage(err, t('admin.keys.revokeFailed')));
      return null;
    },
  });

  return (
    <FormModal
      open
      title={t('admin.keys.revokeTitle')}
      onClose={onClose}
      busy={revoke.isPending}
      formId="revoke-key-form"
      submitLabel={t('admin.keys.revokeSubmit')}
      busyLabel={t('admin.keys.revoking')}
      tone="danger"
    >
      <form id="revoke-key-form" onSubmit={form.onSubmit} noValidate>
        <p>
          <FormattedMessage id="admin.keys.revokeWarning" values={{ key: licenseKey.key, code: (chunks) => <code>{chunks}</code> }} />
        </p>
        <TextAreaField label={t('admin.keys.revokeReason')} rows={3} maxLength={500} {...form.field('reason')} autoFocus />
      </form>
    </FormModal>
  );
}

export function DeleteKeyModal({ licenseKey, onClose }: { licenseKey: LicenseKey; onClose: () => void }) {
  const remove = useDeleteKey();
  const t = useT();
  async function onConfirm() {
    try {
      await remove.mutateAsync(licenseKey._id);
      toast.success(t('admin.keys.deleteDone'));
      onClose();
    } catch (err) {
      toast.error(errorMessage(err, t('admin.keys.deleteFailed')));
    }
  }
  return (
    <ConfirmModal
      title={t('admin.keys.deleteTitle')}
      confirmLabel={t('admin.keys.deleteSubmit')}
      busyLabel={t('admin.keys.deleting')}
      busy={remove.isPending}
      onConfirm={asyncHandler(onConfirm)}
      onClose={onClose}
    >
      <p>
        <FormattedMessage
          id="admin.keys.deleteConfirm"
          values={{
            key: licenseKey.key,
            product: licenseKey.product.name || t('admin.keys.unknownProduct'),
            count: licenseKey.activations.length,
            code: (chunks) => <code>{chunks}</code>,
          }}
        />
      </p>
      <p className="muted">{t('admin.keys.deletePermanent')}</p>
    </ConfirmModal>
  );
}

export function BulkDeleteModal({ keyIds, onClose, onDeleted }: { keyIds: string[]; onClose: () => void; onDeleted: () => void }) {
  const bulk = useBulkDeleteKeys();
  const t = useT();
  const form = useForm({
    initial: { reason: '' },
    validate: ({ reason }) => {
      const errors = adminSchemaErrors<{ keyIds: string; reason: string }>(bulkDeleteSchema, { keyIds, reason });
      // A refusal of the selection (too many keys) shows where the owner is typing, before the reason's.
      const first = errors.keyIds ?? errors.reason;
      return first ? { reason: first } : {};
    },
    submit: async ({ reason }) => {
      const answer = await bulk.mutateAsync(bulkDeleteSchema.parse({ keyIds, reason }));
      toast.success(t('admin.keys.bulkDone', { count: answer.deleted }));
      onDeleted();
      onClose();
    },
    onError: (err) => {
      toast.error(errorMessage(err, t('admin.keys.bulkFailed')));
      return null;
    },
  });

  return (
    <FormModal
      open
      title={t('admin.keys.bulkTitle')}
      onClose={onClose}
      busy={bulk.isPending}
      formId="bulk-delete-form"
      submitLabel={t('admin.keys.bulkSubmit', { count: keyIds.length })}
      busyLabel={t('admin.keys.deleting')}
      tone="danger"
      submitDisabled={keyIds.length === 0}
    >
      <form id="bulk-delete-form" onSubmit={form.onSubmit} noValidate>
        <p>{t('admin.keys.bulkWarning', { count: keyIds.length })}</p>
        <TextAreaField label={t('admin.keys.bulkReason')} rows={3} maxLength={500} {...form.field('reason')} autoFocus />
      </form>
    </FormModal>
  );
}
