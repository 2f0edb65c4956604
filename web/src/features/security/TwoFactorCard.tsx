import { useState } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { Badge } from '../../components/ui/badge';
import { Card } from '../../components/ui/card';
import { useSetupTwoFactor } from './api';
import { DisableTwoFactorModal } from './DisableTwoFactorModal';
import { StepUpModal, type StepUpProof } from '../../components/StepUp';
import { TwoFactorSetupModal } from './TwoFactorSetupModal';

export function TwoFactorCard({ enabled, hasPassword }: { enabled: boolean; hasPassword: boolean }) {
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
    <Card title="Two-factor authentication" actions={<Badge tone={enabled ? 'green' : 'gray'}>{enabled ? 'Enabled' : 'Disabled'}</Badge>}>
      <p className="muted">
        {enabled
          ? 'Signing in asks for a code from your authenticator app after your password.'
          : 'Add a second step to signing in: a 6-digit code from an authenticator app on your phone.'}
      </p>
      {enabled ? (
        <button type="button" className="btn btn-danger" onClick={() => setDisabling(true)}>
          Disable two-factor
        </button>
      ) : (
        <button type="button" className="btn btn-primary" onClick={() => setConfirming(true)} disabled={begin.isPending}>
          {begin.isPending ? 'Preparing…' : 'Enable two-factor'}
        </button>
      )}
      <StepUpModal
        open={confirming}
        title="Confirm it is you"
        account={{ hasPassword, twoFactorEnabled: enabled }}
        submitLabel="Continue"
        busyLabel="Checking…"
        onClose={() => setConfirming(false)}
        act={onEnable}
      >
        <p className="muted">Before showing a new two-factor secret, confirm it is you.</p>
      </StepUpModal>
      <TwoFactorSetupModal setup={setup} onClose={() => setSetup(null)} onEnabled={() => setSetup(null)} />
      <DisableTwoFactorModal open={disabling} onClose={() => setDisabling(false)} hasPassword={hasPassword} />
    </Card>
  );
}
