// Recovery tokens are shown once, right after they are generated; afterwards only how many are left.
import { useState } from 'react';
import { Card } from '../../components/ui/card';
import { toast } from '../../components/ui/toast';
import { TOAST_SMALL_MS } from '../../lib/constants';
import { useGenerateRecoveryTokens } from './api';
import { StepUpModal, type StepUpAccount, type StepUpProof } from '../../components/StepUp';
import { FormattedMessage } from 'react-intl';
import { translate, useT } from '../../lib/i18n';
import { formatDateTime } from '../../lib/format';

function download(tokens: string[]) {
  const text = [
    translate('recovery.fileTitle'),
    translate('recovery.fileGenerated', { date: formatDateTime(Date.now()) }),
    translate('recovery.fileNote'),
    '',
    ...tokens,
    '',
  ].join('\n');
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  const link = Object.assign(document.createElement('a'), { href: url, download: 'keypanel-recovery-tokens.txt' });
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

async function copy(tokens: string[]) {
  try {
    await navigator.clipboard.writeText(tokens.join('\n'));
    toast.success(translate('recovery.copied'), TOAST_SMALL_MS);
  } catch {
    toast.error(translate('recovery.copyFailed'));
  }
}

export function RecoveryTokensCard({ remaining, account }: { remaining: number; account: StepUpAccount }) {
  const t = useT();
  const [tokens, setTokens] = useState<string[] | null>(null);
  const [confirming, setConfirming] = useState(false);
  const generate = useGenerateRecoveryTokens();

  async function onGenerate(proof: StepUpProof) {
    const answer = await generate.mutateAsync(proof);
    setTokens(answer.tokens);
    setConfirming(false);
    toast.success(t('recovery.generated'));
  }

  if (tokens) {
    return (
      <Card title={t('recovery.title')}>
        <div className="notice notice-warning" role="status">
          {t('recovery.saveNow')}
        </div>
        <ul className="token-list mono" aria-label={t('recovery.yours')}>
          {tokens.map((token) => (
            <li key={token}>{token}</li>
          ))}
        </ul>
        <div className="button-row">
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => void copy(tokens)}>
            {t('recovery.copyAll')}
          </button>
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => download(tokens)}>
            {t('recovery.download')}
          </button>
          <button type="button" className="btn btn-primary btn-sm" onClick={() => setTokens(null)}>
            {t('recovery.savedThem')}
          </button>
        </div>
      </Card>
    );
  }

  return (
    <Card title={t('recovery.title')}>
      <p className="muted">{t('recovery.body')}</p>
      <p data-testid="recovery-count">
        <FormattedMessage id="recovery.left" values={{ count: remaining, strong: (chunks) => <strong>{chunks}</strong> }} />
      </p>
      {remaining === 0 ? (
        <button type="button" className="btn btn-primary" onClick={() => setConfirming(true)}>
          {t('recovery.generate')}
        </button>
      ) : (
        <button type="button" className="btn btn-secondary" onClick={() => setConfirming(true)}>
          {t('recovery.regenerate')}
        </button>
      )}
      <StepUpModal
        open={confirming}
        title={remaining === 0 ? t('recovery.generate') : t('recovery.generateNewTitle')}
        account={account}
        submitLabel={remaining === 0 ? t('recovery.generateTokens') : t('recovery.generateNewTokens')}
        busyLabel={t('recovery.generating')}
        onClose={() => setConfirming(false)}
        act={onGenerate}
      >
        {remaining > 0 && <p>{t('recovery.replaceBody', { count: remaining })}</p>}
      </StepUpModal>
    </Card>
  );
}
