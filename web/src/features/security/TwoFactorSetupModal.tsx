// The setup dialog: the QR image, the secret for typing in by hand, and a 6-digit code to prove
// the authenticator app has it (verify stays disabled until exactly six digits are entered).
import { useState, type FormEvent } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { FormModal } from '../../components/ui/form-modal';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { TWO_FACTOR_CODE_LENGTH } from '../../lib/constants';
import { useVerifyTwoFactor } from './api';
import { CodeInput, isCompleteCode } from '../../components/ui/code-input';
import { asyncHandler } from '../../lib/async-handler';

/** The base32 secret in groups of four, easier to read and type. */
export const groupSecret = (secret: string) => secret.replace(/(.{4})/g, '$1 ').trim();

export function TwoFactorSetupModal({
  setup,
  onClose,
  onEnabled,
}: {
  setup: Schemas['TwoFactorSetupResponse'] | null;
  onClose: () => void;
  onEnabled: () => void;
}) {
  const [code, setCode] = useState('');
  const verify = useVerifyTwoFactor();

  function close() {
    setCode('');
    onClose();
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!isCompleteCode(code)) return;
    try {
      await verify.mutateAsync(code);
      toast.success('Two-factor authentication enabled');
      setCode('');
      onEnabled();
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to verify two-factor code'));
    }
  }

  return (
    <FormModal
      open={setup !== null}
      title="Set up two-factor authentication"
      onClose={close}
      busy={verify.isPending}
      formId="two-factor-setup"
      submitLabel="Verify and enable"
      busyLabel="Verifying…"
      submitDisabled={!isCompleteCode(code)}
    >
      {setup && (
        <form id="two-factor-setup" onSubmit={asyncHandler(onSubmit)} noValidate className="two-factor-setup">
          <ol className="setup-steps">
            <li>Scan this QR code with an authenticator app (Google Authenticator, 1Password, Authy…).</li>
          </ol>
          <div className="qr-frame">
            <img src={setup.qrCodeUrl} alt="QR code to add KeyPanel to your authenticator app" width={200} height={200} />
          </div>
          <p className="muted small">Can't scan it? Enter this key in the app instead (time-based, 6 digits):</p>
          <p className="secret-key mono" data-testid="two-factor-secret" aria-label="Secret key for manual entry">
            {groupSecret(setup.secret)}
          </p>
          <ol className="setup-steps" start={2}>
            <li>Enter the {TWO_FACTOR_CODE_LENGTH}-digit code the app shows.</li>
          </ol>
          <CodeInput label="Verification code" value={code} onChange={setCode} autoFocus />
        </form>
      )}
    </FormModal>
  );
}
