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

type LicenseKey = Schemas['LicenseKey'];

export function KeyActions({ licenseKey: k }: { licenseKey: LicenseKey }) {
  const [open, setOpen] = useState<'transfer' | 'regenerate' | 'renew' | null>(null);
  const transfers = usePublicSettings().data?.keyTransfers;
  if (k.status === 'revoked') return null;
  const mayTransfer = transfers?.enabled !== false && k.status !== 'expired';
  return (
    <div className="key-actions">
      {renewable(k) && (
        <button type="button" className="btn btn-primary btn-sm" onClick={() => setOpen('renew')} aria-label={`Renew license key ${k.key}`}>
          Renew
        </button>
      )}
      {mayTransfer && (
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          onClick={() => setOpen('transfer')}
          aria-label={`Transfer license key ${k.key}`}
        >
          Transfer
        </button>
      )}
      <button
        type="button"
        className="btn btn-secondary btn-sm"
        onClick={() => setOpen('regenerate')}
        aria-label={`Regenerate license key ${k.key}`}
      >
        Regenerate
      </button>
      {open === 'transfer' && <TransferModal licenseKey={k} onClose={() => setOpen(null)} />}
      {open === 'regenerate' && <RegenerateModal licenseKey={k} onClose={() => setOpen(null)} />}
      {open === 'renew' && <RenewModal licenseKey={k} onClose={() => setOpen(null)} />}
    </div>
  );
}

function TransferModal({ licenseKey: k, onClose }: { licenseKey: LicenseKey; onClose: () => void }) {
  const [to, setTo] = useState('');
  const [keepValue, setKeepValue] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const transfer = useTransferKey();
  const stepUp = useStepUpPrompt();
  const formId = `transfer-${k._id}`;

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = transferKeySchema.pick({ to: true }).safeParse({ to });
    if (!parsed.success) return setError(parsed.error.issues[0].message);
    setError(null);
    const proof = stepUp.proof();
    if (!proof) return;
    try {
      const answer = await transfer.mutateAsync({ keyId: k._id, body: { ...parsed.data, keepValue, ...proof } });
      toast.success(answer.message);
      onClose();
    } catch (err) {
      if (stepUp.refusedBy(err)) return;
      setError(errorMessage(err, 'Failed to transfer the license key'));
    }
  }

  return (
    <FormModal
      title="Transfer this license key"
      formId={formId}
      submitLabel="Transfer key"
      busyLabel="Transferring…"
      busy={transfer.isPending}
      tone="danger"
      onClose={onClose}
    >
      <form id={formId} onSubmit={asyncHandler(onSubmit)} noValidate>
        <p>
          <code>{k.key}</code> ({k.product.name}) will belong to the account you name, with its remaining time. It leaves your keys; you
          keep a line in your transfers. You cannot undo this.
        </p>
        <p className="muted">
          {keepValue
            ? 'The key keeps its value and its devices: you will still know the value, and the new holder is told so.'
            : 'The new holder gets it under a new value: this one stops working and your devices are signed out of it.'}
        </p>
        <Field
          label="Email or username of the new holder"
          value={to}
          onChange={(e) => setTo(e.target.value)}
          error={error}
          autoComplete="off"
          data-autofocus
          required
        />
        <CheckboxField
          label="Keep its value and devices"
          hint="Only for someone who uses the same devices: you keep knowing the value."
          checked={keepValue}
          onChange={(e) => setKeepValue(e.target.checked)}
        />
        {stepUp.section('Giving a key away needs proof that it is you.')}
      </form>
    </FormModal>
  );
}

function RegenerateModal({ licenseKey: k, onClose }: { licenseKey: LicenseKey; onClose: () => void }) {
  const [reason, setReason] = useState('');
  const [freeDevices, setFreeDevices] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const regenerate = useRegenerateKey();
  const formId = `regenerate-${k._id}`;

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = regenerateKeySchema.safeParse({ reason, freeDevices });
    if (!parsed.success) return setError(parsed.error.issues[0].message);
    setError(null);
    try {
      const answer = await regenerate.mutateAsync({ keyId: k._id, body: parsed.data });
      toast.success(`${answer.message}: ${answer.licenseKey.key}`);
      onClose();
    } catch (err) {
      setError(errorMessage(err, 'Failed to regenerate the license key'));
    }
  }

  return (
    <FormModal
      title="Regenerate this license key"
      formId={formId}
      submitLabel="Regenerate key"
      busyLabel="Regenerating…"
      busy={regenerate.isPending}
      tone="danger"
      onClose={onClose}
    >
      <form id={formId} onSubmit={asyncHandler(onSubmit)} noValidate>
        <p>
          <code>{k.key}</code> gets a new value with the same product and expiry. The old value stops working at once, so use the new key
          wherever this one was entered.
        </p>
        <TextAreaField
          label="Why is it being replaced?"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          error={error}
          rows={2}
          maxLength={500}
          data-autofocus
          required
        />
        <CheckboxField
          label="Free its devices"
          hint="Each device must then activate the new key. Leave unticked to keep them activated."
          checked={freeDevices}
          onChange={(e) => setFreeDevices(e.target.checked)}
        />
      </form>
    </FormModal>
  );
}
