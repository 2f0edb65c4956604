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
import { useT } from '../../lib/i18n';

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
  const t = useT();
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
      toast.success(t('securityLog.event.twoFactorEnabled'));
      setCode('');
      onEnabled();
    } catch (err) {
      toast.error(errorMessage(err, t('twoFactor.verifyFailed')));
    }
  }

  return (
    <FormModal
      open={setup !== null}
      title={t('twoFactor.setupTitle')}
      onClose={close}
      busy={verify.isPending}
      formId="two-factor-setup"
      submitLabel={t('twoFactor.verifySubmit')}
      busyLabel={t('twoFactor.verifying')}
      submitDisabled={!isCompleteCode(code)}
    >
      {setup && (
        <form id="two-factor-setup" onSubmit={asyncHandler(onSubmit)} noValidate className="two-factor-setup">
          <ol className="setup-steps">
            <li>{t('twoFactor.scan')}</li>
          </ol>
          <div className="qr-frame">
            <img src={setup.qrCodeUrl} alt={t('twoFactor.qrAlt')} width={200} height={200} />
          </div>
          <p className="muted small">{t('twoFactor.cantScan')}</p>
          <p className="secret-key mono" data-testid="two-factor-secret" aria-label={t('twoFactor.secretLabel')}>
            {groupSecret(setup.secret)}
          </p>
          <ol className="setup-steps" start={2}>
            <li>{t('twoFactor.enterCode', { digits: TWO_FACTOR_CODE_LENGTH })}</li>
          </ol>
          <CodeInput label={t('twoFactor.verificationCode')} value={code} onChange={setCode} autoFocus />
        </form>
      )}
    </FormModal>
  );
}
