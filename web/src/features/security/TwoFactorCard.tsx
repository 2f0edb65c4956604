import { useState } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { Badge } from '../../components/ui/badge';
import { Card } from '../../components/ui/card';
import { useSetupTwoFactor } from './api';
import { DisableTwoFactorModal } from './DisableTwoFactorModal';
import { StepUpModal, type StepUpProof } from '../../components/StepUp';
import { TwoFactorSetupModal } from './TwoFactorSetupModal';
import { useT } from '../../lib/i18n';

export function TwoFactorCard({ enabled, hasPassword }: { enabled: boolean; hasPassword: boolean }) {
  const t = useT();
  const [setup, setSetup] = useState<Schemas['TwoFactorSetupResponse'] | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [disabling, setDisabling] = useState(false);
  const begin = useSetupTwoFactor();

  // Confirmed before setup starts, so no secret is shown to a session alone.
  async function onEnable(proof: StepUpProof) {
    const answer = await begin.mutateAsync(proof);
    setConfirming(false);
    setSetup(answer);
  }

  return (
    <Card
      title={t('twoFactor.title')}
      actions={<Badge tone={enabled ? 'green' : 'gray'}>{enabled ? t('twoFactor.enabled') : t('twoFactor.disabled')}</Badge>}
    >
      <p className="muted">{enabled ? t('twoFactor.onBody') : t('twoFactor.offBody')}</p>
      {enabled ? (
        <button type="button" className="btn btn-danger" onClick={() => setDisabling(true)}>
          {t('twoFactor.disable')}
        </button>
      ) : (
        <button type="button" className="btn btn-primary" onClick={() => setConfirming(true)} disabled={begin.isPending}>
          {begin.isPending ? t('twoFactor.preparing') : t('twoFactor.enable')}
        </button>
      )}
      <StepUpModal
        open={confirming}
        title={t('stepUp.legend')}
        account={{ hasPassword, twoFactorEnabled: enabled }}
        submitLabel={t('twoFactor.continue')}
        busyLabel={t('password.checking')}
        onClose={() => setConfirming(false)}
        act={onEnable}
      >
        <p className="muted">{t('twoFactor.confirmFirst')}</p>
      </StepUpModal>
      <TwoFactorSetupModal setup={setup} onClose={() => setSetup(null)} onEnabled={() => setSetup(null)} />
      <DisableTwoFactorModal open={disabling} onClose={() => setDisabling(false)} hasPassword={hasPassword} />
    </Card>
  );
}
