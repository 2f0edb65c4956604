// The owner's data export (GET /api/admin/export): the whole shop as JSON lines, or one table as
// JSON lines or CSV; the ledger and the audit log may be cut to a date range.
import { useState, type FormEvent } from 'react';
import { EXPORT_FORMATS, RANGED_TABLES, SHOP_TABLES } from '../../../../../worker/modules/portability/schemas';
import { Card } from '../../../components/ui/card';
import { Field, SelectField } from '../../../components/ui/field';
import { toast } from '../../../components/ui/toast';
import { errorMessage } from '../../../lib/api';
import { downloadFile } from '../../../lib/download';

const TABLE_LABELS: Record<(typeof SHOP_TABLES)[number], string> = {
  users: 'Users',
  products: 'Products',
  keys: 'License keys',
  devices: 'Devices',
  ledger: 'Ledger',
  payments: 'Payments',
  audit: 'Audit log',
};
const FORMAT_LABELS: Record<(typeof EXPORT_FORMATS)[number], string> = { jsonl: 'JSON lines', csv: 'CSV' };

export function DataExportSection() {
  const [table, setTable] = useState('');
  const [format, setFormat] = useState<(typeof EXPORT_FORMATS)[number]>('jsonl');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [busy, setBusy] = useState(false);
  const ranged = (RANGED_TABLES as readonly string[]).includes(table);
  // A CSV file holds one table.
  const problem = format === 'csv' && !table ? 'A CSV export holds one table: choose it' : null;

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
      toast.success(`Saved ${name}`);
    } catch (err) {
      toast.error(errorMessage(err, 'The export failed'));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card title="Data Export" className="data-export">
      <form onSubmit={(e) => void onSubmit(e)} noValidate aria-label="Data export">
        <p className="muted small">
          The whole shop, or one table. The ledger and the audit log may be cut to dates (the end is not included).
        </p>
        <div className="form-grid">
          <SelectField id="export-table" label="Table" value={table} onChange={(e) => setTable(e.target.value)}>
            <option value="">Everything</option>
            {SHOP_TABLES.map((t) => (
              <option key={t} value={t}>
                {TABLE_LABELS[t]}
              </option>
            ))}
          </SelectField>
          <SelectField
            id="export-format"
            label="Format"
            value={format}
            onChange={(e) => setFormat(e.target.value as (typeof EXPORT_FORMATS)[number])}
            error={problem ?? undefined}
          >
            {EXPORT_FORMATS.map((f) => (
              <option key={f} value={f}>
                {FORMAT_LABELS[f]}
              </option>
            ))}
          </SelectField>
          {ranged && (
            <>
              <Field id="export-from" label="From" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
              <Field id="export-to" label="Before" type="date" value={to} onChange={(e) => setTo(e.target.value)} />
            </>
          )}
        </div>
        <button type="submit" className="btn btn-primary" disabled={busy || problem !== null} aria-busy={busy}>
          {busy ? 'Exporting…' : 'Download export'}
        </button>
      </form>
    </Card>
  );
}
