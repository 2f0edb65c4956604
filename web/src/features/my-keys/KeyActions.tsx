// What a customer can do with one of their keys beyond reading it: renew it (Renew), give it to
// another account (Transfer, with proof that it is them) and replace a leaked value (Regenerate).
import { useState, type FormEvent } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { regenerateKeySchema, transferKeySchema } from '../../../../worker/modules/keys/schemas/key-care';
import { useStepUpPrompt } from '../../components/StepUp';
import { CheckboxField, Field, TextAreaField } from '../../components/ui/field';
import { FormModal } from '../../components/ui/form-modal';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { asyncHandler } from '../../lib/async-handler';
import { usePublicSettings } from '../../lib/public-settings';
import { useRegenerateKey, useTransferKey } from './api';
import { renewable, RenewModal } from './Renewal';
import { useT } from '../../lib/i18n';
import { validationMessage } from '../../lib/form/messages';
import { answerText } from '../../lib/server-words';

type LicenseKey = Schemas['LicenseKey'];

export function KeyActions({ licenseKey: k }: { licenseKey: LicenseKey }) {
  const t = useT();
  const [open, setOpen] = useState<'transfer' | 'regenerate' | 'renew' | null>(null);
  const transfers = usePublicSettings().data?.keyTransfers;
  if (k.status === 'revoked') return null;
  const mayTransfer = transfers?.enabled !== false && k.status !== 'expired';
  return (
    <div className="key-actions">
      {renewable(k) && (
        <button
          type="button"
          className="btn btn-primary btn-sm"
          onClick={() => setOpen('renew')}
          aria-label={t('keyActions.renewLabel', { key: k.key })}
        >
          {t('keyActions.renew')}
        </button>
      )}
      {mayTransfer && (
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          onClick={() => setOpen('transfer')}
          aria-label={t('keyActions.transferLabel', { key: k.key })}
        >
          {t('keyActions.transfer')}
        </button>
      )}
      <button
        type="button"
        className="btn btn-secondary btn-sm"
        onClick={() => setOpen('regenerate')}
        aria-label={t('keyActions.regenerateLabel', { key: k.key })}
      >
        {t('keyActions.regenerate')}
      </button>
      {open === 'transfer' && <TransferModal licenseKey={k} onClose={() => setOpen(null)} />}
      {open === 'regenerate' && <RegenerateModal licenseKey={k} onClose={() => setOpen(null)} />}
      {open === 'renew' && <RenewModal licenseKey={k} onClose={() => setOpen(null)} />}
    </div>
  );
}

function TransferModal({ licenseKey: k, onClose }: { licenseKey: LicenseKey; onClose: () => void }) {
  const t = useT();
  const [to, setTo] = useState('');
  const [keepValue, setKeepValue] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const transfer = useTransferKey();
  const stepUp = useStepUpPrompt();
  const formId = `transfer-${k._id}`;

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = transferKeySchema.pick({ to: true }).safeParse({ to });
    if (!parsed.success) return setError(validationMessage(parsed.error.issues[0].message));
    setError(null);
    const proof = stepUp.proof();
    if (!proof) return;
    try {
      const answer = await transfer.mutateAsync({ keyId: k._id, body: { ...parsed.data, keepValue, ...proof } });
      toast.success(answerText(answer.message, t('myKeys.transferred')));
      onClose();
    } catch (err) {
      if (stepUp.refusedBy(err)) return;
      setError(errorMessage(err, t('keyActions.transferFailed')));
    }
  }

  return (
    <FormModal
      title={t('keyActions.transferTitle')}
      formId={formId}
      submitLabel={t('keyActions.transferSubmit')}
      busyLabel={t('keyActions.transferring')}
      busy={transfer.isPending}
      tone="danger"
      onClose={onClose}
    >
      <form id={formId} onSubmit={asyncHandler(onSubmit)} noValidate>
        <p>
          <code>{k.key}</code> ({k.product.name}) {t('keyActions.transferBody')}
        </p>
        <p className="muted">{keepValue ? t('keyActions.keepValueOn') : t('keyActions.keepValueOff')}</p>
        <Field
          label={t('keyActions.transferTo')}
          value={to}
          onChange={(e) => setTo(e.target.value)}
          error={error}
          autoComplete="off"
          data-autofocus
          required
        />
        <CheckboxField
          label={t('keyActions.keepValue')}
          hint={t('keyActions.keepValueHint')}
          checked={keepValue}
          onChange={(e) => setKeepValue(e.target.checked)}
        />
        {stepUp.section(t('keyActions.transferProof'))}
      </form>
    </FormModal>
  );
}

function RegenerateModal({ licenseKey: k, onClose }: { licenseKey: LicenseKey; onClose: () => void }) {
  const t = useT();
  const [reason, setReason] = useState('');
  const [freeDevices, setFreeDevices] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const regenerate = useRegenerateKey();
  const formId = `regenerate-${k._id}`;

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = regenerateKeySchema.safeParse({ reason, freeDevices });
    if (!parsed.success) return setError(validationMessage(parsed.error.issues[0].message));
    setError(null);
    try {
      const answer = await regenerate.mutateAsync({ keyId: k._id, body: parsed.data });
      toast.success(
        answerText(
          answer.message && `${answer.message}: ${answer.licenseKey.key}`,
          t('myKeys.regenerated', { key: answer.licenseKey.key }),
        ),
      );
      onClose();
    } catch (err) {
      setError(errorMessage(err, t('keyActions.regenerateFailed')));
    }
  }

  return (
    <FormModal
      title={t('keyActions.regenerateTitle')}
      formId={formId}
      submitLabel={t('keyActions.regenerateSubmit')}
      busyLabel={t('keyActions.regenerating')}
      busy={regenerate.isPending}
      tone="danger"
      onClose={onClose}
    >
      <form id={formId} onSubmit={asyncHandler(onSubmit)} noValidate>
        <p>
          <code>{k.key}</code> {t('keyActions.regenerateBody')}
        </p>
        <TextAreaField
          label={t('keyActions.reason')}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          error={error}
          rows={2}
          maxLength={500}
          data-autofocus
          required
        />
        <CheckboxField
          label={t('keyActions.freeDevices')}
          hint={t('keyActions.freeDevicesHint')}
          checked={freeDevices}
          onChange={(e) => setFreeDevices(e.target.checked)}
        />
      </form>
    </FormModal>
  );
}
