// Turning two-factor off asks for proof beyond the session: a current code or the password.
import { useState, type FormEvent } from 'react';
import { CodeInput, isCompleteCode } from '../../components/ui/code-input';
import { Field } from '../../components/ui/field';
import { FormModal } from '../../components/ui/form-modal';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { useDisableTwoFactor } from './api';
import { asyncHandler } from '../../lib/async-handler';
import { useT } from '../../lib/i18n';
import { answerText } from '../../lib/server-words';

type Proof = 'code' | 'password';

export function DisableTwoFactorModal({ open, onClose, hasPassword }: { open: boolean; onClose: () => void; hasPassword: boolean }) {
  const t = useT();
  const [proof, setProof] = useState<Proof>('code');
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const disable = useDisableTwoFactor();
  const ready = proof === 'code' ? isCompleteCode(code) : password.length > 0;

  function close() {
    setCode('');
    setPassword('');
    setProof('code');
    onClose();
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!ready) return;
    try {
      const answer = await disable.mutateAsync(proof === 'code' ? { code } : { currentPassword: password });
      toast.success(answerText(answer.message, t('securityLog.event.twoFactorDisabled')));
      close();
    } catch (err) {
      toast.error(errorMessage(err, t('twoFactor.disableFailed')));
    }
  }

  return (
    <FormModal
      open={open}
      title={t('twoFactor.disableTitle')}
      onClose={close}
      busy={disable.isPending}
      size="sm"
      formId="two-factor-disable"
      submitLabel={t('twoFactor.disableSubmit')}
      busyLabel={t('twoFactor.disabling')}
      tone="danger"
      submitDisabled={!ready}
    >
      <form id="two-factor-disable" onSubmit={asyncHandler(onSubmit)} noValidate>
        <p className="muted">{t('twoFactor.disableBody')}</p>
        {hasPassword && (
          <fieldset className="segmented">
            <legend className="visually-hidden">{t('stepUp.confirmWith')}</legend>
            <label className={proof === 'code' ? 'active' : ''}>
              <input type="radio" name="proof" checked={proof === 'code'} onChange={() => setProof('code')} />{' '}
              {t('stepUp.authenticatorCode')}
            </label>
            <label className={proof === 'password' ? 'active' : ''}>
              <input type="radio" name="proof" checked={proof === 'password'} onChange={() => setProof('password')} />{' '}
              {t('stepUp.password')}
            </label>
          </fieldset>
        )}
        {proof === 'code' ? (
          <CodeInput label={t('stepUp.codeLabel')} value={code} onChange={setCode} autoFocus />
        ) : (
          <Field
            label={t('twoFactor.yourPassword')}
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            autoFocus
          />
        )}
      </form>
    </FormModal>
  );
}
