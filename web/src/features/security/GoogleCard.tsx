import { useState } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { Badge } from '../../components/ui/badge';
import { Card } from '../../components/ui/card';
import { toast } from '../../components/ui/toast';
import { useConnectGoogle, useDisconnectGoogle } from './api';
import { StepUpModal, type StepUpProof } from '../../components/StepUp';

export function GoogleCard({ info }: { info: Schemas['SecurityInfo'] }) {
  const connect = useConnectGoogle();
  const disconnect = useDisconnectGoogle();
  const [confirming, setConfirming] = useState(false);
  const [connecting, setConnecting] = useState(false);

  /** A refusal (a wrong password, an unproven address) stays in the dialog; success leaves for Google. */
  async function onConnect(proof: StepUpProof) {
    await connect.mutateAsync(proof);
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
            onClick={() => setConnecting(true)}
            disabled={connect.isPending || connect.isSuccess || !info.googleAvailable}
          >
            <span aria-hidden="true" className="google-mark">
              G
            </span>{' '}
            {connect.isPending || connect.isSuccess ? 'Opening Google…' : 'Connect Google'}
          </button>
          <StepUpModal
            open={connecting && !connect.isSuccess}
            title="Connect Google?"
            account={info}
            submitLabel="Continue to Google"
            busyLabel="Opening Google…"
            onClose={() => setConnecting(false)}
            act={onConnect}
          >
            <p className="muted">Whoever holds the Google account will be able to sign in to this account.</p>
          </StepUpModal>
        </>
      )}
    </Card>
  );
}
