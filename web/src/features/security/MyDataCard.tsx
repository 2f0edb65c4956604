// Download my data: the account's own data (account, keys, devices, payments, security log) as
// JSON lines, from GET /api/users/my-data.
import { useState } from 'react';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { downloadFile } from '../../lib/download';
import { useT } from '../../lib/i18n';

export function MyDataCard() {
  const t = useT();
  const [busy, setBusy] = useState(false);

  async function onDownload() {
    setBusy(true);
    try {
      const name = await downloadFile('/api/users/my-data', { format: 'jsonl' }, 'keypanel-my-data.jsonl');
      toast.success(t('myData.saved', { name }));
    } catch (err) {
      toast.error(errorMessage(err, t('myData.failed')));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card" aria-labelledby="my-data-heading">
      <h2 id="my-data-heading">{t('myData.title')}</h2>
      <p className="muted small">{t('myData.body')}</p>
      <button type="button" className="btn btn-secondary" onClick={() => void onDownload()} disabled={busy} aria-busy={busy}>
        {busy ? t('twoFactor.preparing') : t('myData.download')}
      </button>
    </section>
  );
}
