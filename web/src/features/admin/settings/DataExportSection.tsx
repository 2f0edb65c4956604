// The owner's data export (GET /api/admin/export): the whole shop as JSON lines, or one table as
// JSON lines or CSV; the ledger and the audit log may be cut to a date range.
import { useState, type FormEvent } from 'react';
import { EXPORT_FORMATS, RANGED_TABLES, SHOP_TABLES } from '../../../../../worker/modules/portability/schemas';
import { Card } from '../../../components/ui/card';
import { Field, SelectField } from '../../../components/ui/field';
import { toast } from '../../../components/ui/toast';
import { errorMessage } from '../../../lib/api';
import { downloadFile } from '../../../lib/download';
import { translate, type MessageId } from '../../../lib/i18n';

const TABLE_LABELS: Record<(typeof SHOP_TABLES)[number], MessageId> = {
  users: 'admin.export.table.users',
  products: 'admin.export.table.products',
  keys: 'admin.export.table.keys',
  devices: 'admin.export.table.devices',
  ledger: 'admin.export.table.ledger',
  payments: 'admin.export.table.payments',
  audit: 'admin.export.table.audit',
};
const FORMAT_LABELS: Record<(typeof EXPORT_FORMATS)[number], MessageId> = {
  jsonl: 'admin.export.format.jsonl',
  csv: 'admin.export.format.csv',
};

export function DataExportSection() {
  const [table, setTable] = useState('');
  const [format, setFormat] = useState<(typeof EXPORT_FORMATS)[number]>('jsonl');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [busy, setBusy] = useState(false);
  const ranged = (RANGED_TABLES as readonly string[]).includes(table);
  // A CSV file holds one table.
  const problem = format === 'csv' && !table ? translate('admin.export.csvNeedsTable') : null;

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (problem) return;
    setBusy(true);
    try {
      const name = await downloadFile(
        '/api/admin/export',
        { format, table: table || undefined, from: ranged ? from : undefined, to: ranged ? to : undefined },
        `keypanel-${table || 'shop'}.${format}`,
      );
      toast.success(translate('admin.export.saved', { name }));
    } catch (err) {
      toast.error(errorMessage(err, translate('admin.export.failed')));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card title={translate('admin.export.title')} className="data-export">
      <form onSubmit={(e) => void onSubmit(e)} noValidate aria-label={translate('admin.export.form')}>
        <p className="muted small">{translate('admin.export.intro')}</p>
        <div className="form-grid">
          <SelectField
            id="export-table"
            label={translate('admin.export.tableLabel')}
            value={table}
            onChange={(e) => setTable(e.target.value)}
          >
            <option value="">{translate('admin.export.everything')}</option>
            {SHOP_TABLES.map((t) => (
              <option key={t} value={t}>
                {translate(TABLE_LABELS[t])}
              </option>
            ))}
          </SelectField>
          <SelectField
            id="export-format"
            label={translate('admin.export.formatLabel')}
            value={format}
            onChange={(e) => setFormat(e.target.value as (typeof EXPORT_FORMATS)[number])}
            error={problem ?? undefined}
          >
            {EXPORT_FORMATS.map((f) => (
              <option key={f} value={f}>
                {translate(FORMAT_LABELS[f])}
              </option>
            ))}
          </SelectField>
          {ranged && (
            <>
              <Field
                id="export-from"
                label={translate('admin.export.from')}
                type="date"
                value={from}
                onChange={(e) => setFrom(e.target.value)}
              />
              <Field
                id="export-to"
                label={translate('admin.export.before')}
                type="date"
                value={to}
                onChange={(e) => setTo(e.target.value)}
              />
            </>
          )}
        </div>
        <button type="submit" className="btn btn-primary" disabled={busy || problem !== null} aria-busy={busy}>
          {busy ? translate('admin.export.exporting') : translate('admin.export.submit')}
        </button>
      </form>
    </Card>
  );
}
