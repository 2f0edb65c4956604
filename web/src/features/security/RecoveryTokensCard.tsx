// Recovery tokens are shown once, right after they are generated; afterwards only how many are left.
import { useState } from 'react';
import { Card } from '../../components/ui/card';
import { Modal, ModalActions } from '../../components/ui/modal';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { TOAST_SMALL_MS } from '../../lib/constants';
import { useGenerateRecoveryTokens } from './api';

function download(tokens: string[]) {
  const text = ['KeyPanel recovery tokens', `Generated ${new Date().toLocaleString()}`, 'Each token works once, in place of a two-factor code.', '', ...tokens, ''].join('\n');
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

export function RecoveryTokensCard({ remaining }: { remaining: number }) {
  const [tokens, setTokens] = useState<string[] | null>(null);
  const [confirming, setConfirming] = useState(false);
  const generate = useGenerateRecoveryTokens();

  async function onGenerate() {
    try {
      const answer = await generate.mutateAsync();
      setTokens(answer.tokens);
      setConfirming(false);
      toast.success('Recovery tokens generated. Save them now: they are shown only once.');
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to generate recovery tokens'));
    }
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
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => copy(tokens)}>
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
        <button type="button" className="btn btn-primary" onClick={onGenerate} disabled={generate.isPending}>
          {generate.isPending ? 'Generating…' : 'Generate recovery tokens'}
        </button>
      ) : (
        <button type="button" className="btn btn-secondary" onClick={() => setConfirming(true)}>
          Regenerate tokens
        </button>
      )}
      <Modal
        open={confirming}
        title="Generate new recovery tokens?"
        size="sm"
        onClose={() => setConfirming(false)}
        busy={generate.isPending}
        footer={<ModalActions onCancel={() => setConfirming(false)} busy={generate.isPending} label="Generate new tokens" busyLabel="Generating…" tone="primary" onAct={onGenerate} />}
      >
        <p>Your {remaining} remaining {remaining === 1 ? 'token stops' : 'tokens stop'} working and ten new ones replace them.</p>
      </Modal>
    </Card>
  );
}
