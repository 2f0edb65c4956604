import { useState } from 'react';
import type { SecurityInfo } from '@schemas/entities';
import { Badge } from '../../components/ui/badge';
import { Card } from '../../components/ui/card';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { useConnectGoogle, useDisconnectGoogle } from './api';
import { StepUpModal, type StepUpProof } from './StepUp';
import { asyncHandler } from '../../lib/async-handler';

export function GoogleCard({ info }: { info: SecurityInfo }) {
  const connect = useConnectGoogle();
  const disconnect = useDisconnectGoogle();
  const [confirming, setConfirming] = useState(false);

  async function onConnect() {
    try {
      await connect.mutateAsync();
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to connect Google account'));
    }
  }

  async function onDisconnect(proof: StepUpProof) {
    await disconnect.mutateAsync(proof);
    setConfirming(false);
    toast.success('Google account disconnected');
  }

  return (
    <Card
      title="Google account"
      actions={<Badge tone={info.googleConnected ? 'green' : 'gray'}>{info.googleConnected ? 'Connected' : 'Not connected'}</Badge>}
    >
      {info.googleConnected ? (
        <>
          <p>
            Connected as <strong>{info.googleEmail ?? 'your Google account'}</strong>. You can sign in with Google.
          </p>
          {!info.hasPassword && (
            <p className="field-hint">Google is the only way into this account: set a password before disconnecting it.</p>
          )}
          <button
            type="button"
            className="btn btn-secondary"
            onClick={() => setConfirming(true)}
            disabled={disconnect.isPending || !info.hasPassword}
          >
            {disconnect.isPending ? 'Disconnecting…' : 'Disconnect Google'}
          </button>
          <StepUpModal
            open={confirming}
            title="Disconnect Google?"
            account={info}
            submitLabel="Disconnect"
            busyLabel="Disconnecting…"
            tone="danger"
            onClose={() => setConfirming(false)}
            act={onDisconnect}
          >
            <p className="muted">You will no longer be able to sign in with Google.</p>
          </StepUpModal>
        </>
      ) : (
        <>
          <p className="muted">Connect your Google account to sign in with one click.</p>
          {!info.googleAvailable && (
            <p className="notice notice-info" role="note">
              Sign in with Google is not available on this server.
            </p>
          )}
          {/* While connecting, the browser is leaving for Google: keep the button busy. */}
          <button
            type="button"
            className="btn btn-secondary"
            onClick={asyncHandler(onConnect)}
            disabled={connect.isPending || connect.isSuccess || !info.googleAvailable}
          >
            <span aria-hidden="true" className="google-mark">
              G
            </span>{' '}
            {connect.isPending || connect.isSuccess ? 'Opening Google…' : 'Connect Google'}
          </button>
        </>
      )}
    </Card>
  );
}
