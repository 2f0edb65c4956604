import { useState } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { Badge } from '../../components/ui/badge';
import { Card } from '../../components/ui/card';
import { toast } from '../../components/ui/toast';
import { useConnectGoogle, useDisconnectGoogle } from './api';
import { StepUpModal, type StepUpProof } from '../../components/StepUp';
import { FormattedMessage } from 'react-intl';
import { useT } from '../../lib/i18n';

export function GoogleCard({ info }: { info: Schemas['SecurityInfo'] }) {
  const t = useT();
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
    toast.success(t('securityLog.event.googleDisconnected'));
  }

  return (
    <Card
      title={t('google.title')}
      actions={
        <Badge tone={info.googleConnected ? 'green' : 'gray'}>
          {info.googleConnected ? t('google.connected') : t('google.notConnected')}
        </Badge>
      }
    >
      {info.googleConnected ? (
        <>
          <p>
            <FormattedMessage
              id="google.connectedAs"
              values={{ email: info.googleEmail ?? t('google.yourAccount'), strong: (chunks) => <strong>{chunks}</strong> }}
            />
          </p>
          {!info.hasPassword && <p className="field-hint">{t('google.onlyWay')}</p>}
          <button
            type="button"
            className="btn btn-secondary"
            onClick={() => setConfirming(true)}
            disabled={disconnect.isPending || !info.hasPassword}
          >
            {disconnect.isPending ? t('google.disconnecting') : t('google.disconnect')}
          </button>
          <StepUpModal
            open={confirming}
            title={t('google.disconnectTitle')}
            account={info}
            submitLabel={t('google.disconnectSubmit')}
            busyLabel={t('google.disconnecting')}
            tone="danger"
            onClose={() => setConfirming(false)}
            act={onDisconnect}
          >
            <p className="muted">{t('google.disconnectBody')}</p>
          </StepUpModal>
        </>
      ) : (
        <>
          <p className="muted">{t('google.connectBody')}</p>
          {!info.googleAvailable && (
            <p className="notice notice-info" role="note">
              {t('google.unavailable')}
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
            {connect.isPending || connect.isSuccess ? t('auth.google.opening') : t('google.connect')}
          </button>
          <StepUpModal
            open={connecting && !connect.isSuccess}
            title={t('google.connectTitle')}
            account={info}
            submitLabel={t('google.continue')}
            busyLabel={t('auth.google.opening')}
            onClose={() => setConnecting(false)}
            act={onConnect}
          >
            <p className="muted">{t('google.connectWarning')}</p>
          </StepUpModal>
        </>
      )}
    </Card>
  );
}
