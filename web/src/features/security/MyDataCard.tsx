// Download my data: the account's own data (account, keys, devices, payments, security log) as
// JSON lines, from GET /api/users/my-data.
import { useState } from 'react';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { downloadFile } from '../../lib/download';

export function MyDataCard() {
  const [busy, setBusy] = useState(false);

  async function onDownload() {
    setBusy(true);
    try {
      const name = await downloadFile('/api/users/my-data', { format: 'jsonl' }, 'keypanel-my-data.jsonl');
      toast.success(`Saved ${name}`);
    } catch (err) {
      toast.error(errorMessage(err, 'Could not download your data'));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card" aria-labelledby="my-data-heading">
      <h2 id="my-data-heading">Your data</h2>
      <p className="muted small">
        A copy of what KeyPanel holds about you: your account, keys, devices, payments and security log, as JSON lines.
      </p>
      <button type="button" className="btn btn-secondary" onClick={() => void onDownload()} disabled={busy} aria-busy={busy}>
        {busy ? 'Preparing…' : 'Download my data'}
      </button>
    </section>
  );
}
