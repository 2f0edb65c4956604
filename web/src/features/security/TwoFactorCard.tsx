import { useState } from 'react';
import type { TwoFactorSetupResponse } from '@schemas/entities';
import { Badge } from '../../components/ui/badge';
import { Card } from '../../components/ui/card';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { useSetupTwoFactor } from './api';
import { DisableTwoFactorModal } from './DisableTwoFactorModal';
import { TwoFactorSetupModal } from './TwoFactorSetupModal';

export function TwoFactorCard({ enabled, hasPassword }: { enabled: boolean; hasPassword: boolean }) {
  const [setup, setSetup] = useState<TwoFactorSetupResponse | null>(null);
  const [disabling, setDisabling] = useState(false);
  const begin = useSetupTwoFactor();

  async function onEnable() {
    try {
      setSetup(await begin.mutateAsync());
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to setup two-factor authentication'));
    }
  }

  return (
    <Card
      title="Two-factor authentication"
      actions={<Badge tone={enabled ? 'green' : 'gray'}>{enabled ? 'Enabled' : 'Disabled'}</Badge>}
    >
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
        <button type="button" className="btn btn-primary" onClick={onEnable} disabled={begin.isPending}>
          {begin.isPending ? 'Preparing…' : 'Enable two-factor'}
        </button>
      )}
      <TwoFactorSetupModal setup={setup} onClose={() => setSetup(null)} onEnabled={() => setSetup(null)} />
      <DisableTwoFactorModal open={disabling} onClose={() => setDisabling(false)} hasPassword={hasPassword} />
    </Card>
  );
}
