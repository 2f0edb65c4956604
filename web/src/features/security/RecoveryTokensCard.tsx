// Recovery tokens are shown once, right after they are generated; afterwards only how many are left.
import { useState } from 'react';
import { Card } from '../../components/ui/card';
import { toast } from '../../components/ui/toast';
import { TOAST_SMALL_MS } from '../../lib/constants';
import { useGenerateRecoveryTokens } from './api';
import { StepUpModal, type StepUpAccount, type StepUpProof } from '../../components/StepUp';

function download(tokens: string[]) {
  const text = [
    'KeyPanel recovery tokens',
    `Generated ${new Date().toLocaleString()}`,
    'Each token works once, in place of a two-factor code.',
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
    toast.success('Recovery tokens copied', TOAST_SMALL_MS);
  } catch {
    toast.error('Could not copy. Select the tokens and copy them by hand.');
  }
}

export function RecoveryTokensCard({ remaining, account }: { remaining: number; account: StepUpAccount }) {
  const [tokens, setTokens] = useState<string[] | null>(null);
  const [confirming, setConfirming] = useState(false);
  const generate = useGenerateRecoveryTokens();

  async function onGenerate(proof: StepUpProof) {
    const answer = await generate.mutateAsync(proof);
    setTokens(answer.tokens);
    setConfirming(false);
    toast.success('Recovery tokens generated. Save them now: they are shown only once.');
  }

  if (tokens) {
    return (
      <Card title="Recovery tokens">
        <div className="notice notice-warning" role="status">
          Save these tokens somewhere safe now. They are shown only once; each works once in place of a code.
        </div>
        <ul className="token-list mono" aria-label="Your recovery tokens">
          {tokens.map((t) => (
            <li key={t}>{t}</li>
          ))}
        </ul>
        <div className="button-row">
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => void copy(tokens)}>
            Copy all
          </button>
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => download(tokens)}>
            Download
          </button>
          <button type="button" className="btn btn-primary btn-sm" onClick={() => setTokens(null)}>
            I have saved them
          </button>
        </div>
      </Card>
    );
  }

  return (
    <Card title="Recovery tokens">
      <p className="muted">If you lose your phone, a recovery token signs you in once in place of a code.</p>
      <p data-testid="recovery-count">
        <strong>{remaining}</strong> {remaining === 1 ? 'token' : 'tokens'} left
      </p>
      {remaining === 0 ? (
        <button type="button" className="btn btn-primary" onClick={() => setConfirming(true)}>
          Generate recovery tokens
        </button>
      ) : (
        <button type="button" className="btn btn-secondary" onClick={() => setConfirming(true)}>
          Regenerate tokens
        </button>
      )}
      <StepUpModal
        open={confirming}
        title={remaining === 0 ? 'Generate recovery tokens' : 'Generate new recovery tokens?'}
        account={account}
        submitLabel={remaining === 0 ? 'Generate tokens' : 'Generate new tokens'}
        busyLabel="Generating…"
        onClose={() => setConfirming(false)}
        act={onGenerate}
      >
        {remaining > 0 && (
          <p>
            Your {remaining} remaining {remaining === 1 ? 'token stops' : 'tokens stop'} working and ten new ones replace them.
          </p>
        )}
      </StepUpModal>
    </Card>
  );
}
