// Import licences (owner): a file from another system (Keygen, Lemon Squeezy, Gumroad) or KeyPanel's
// own, read in the browser; a preview of its first records; a dry run of every chunk that counts
// what would be created, matched and skipped (and refuses a file with a bad record, by line); then
// the import, chunk by chunk, with its progress.
import { useId, useMemo, useState, type ChangeEvent } from 'react';
import {
  IMPORT_FORMATS,
  IMPORT_LISTED,
  addToTally,
  chunkRecords,
  emptyImportTally,
  earlierInFile,
  readImportFile,
  unknownFields,
  type ImportFormat,
  type ImportProblem,
  type ImportRecord,
  type ImportTally,
} from '../../../../../worker/modules/portability/schemas';
import { Field, SelectField, CheckboxField } from '../../../components/ui/field';
import { ApiError, errorMessage } from '../../../lib/api';
import { asyncHandler } from '../../../lib/async-handler';
import { useT, type MessageId } from '../../../lib/i18n';
import { useAllProducts } from '../products/api';
import { useAfterKeyChange } from '../license-keys/api';
import { importChunk } from './api';

const FORMAT_LABELS: Record<ImportFormat, MessageId> = {
  keypanel: 'admin.import.format.keypanel',
  keygen: 'admin.import.format.keygen',
  lemonsqueezy: 'admin.import.format.lemonsqueezy',
  gumroad: 'admin.import.format.gumroad',
  polar: 'admin.import.format.polar',
};
const PREVIEW_ROWS = 5;
const PREVIEW_COLUMNS = 6;

type Stage =
  | { kind: 'idle' }
  | { kind: 'running'; label: string; done: number; total: number }
  | { kind: 'checked'; run: ImportTally }
  | { kind: 'imported'; run: ImportTally }
  | { kind: 'refused'; problems: ImportProblem[]; count: number }
  | { kind: 'failed'; message: string };

/** A record's value as a preview cell shows it. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function Preview({ records }: { records: ImportRecord[] }) {
  const first = records.slice(0, PREVIEW_ROWS);
  const columns = [...new Set(first.flatMap((r) => Object.keys(r.record)))].slice(0, PREVIEW_COLUMNS);
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="muted">
          The first {first.length} of {records.length} {records.length === 1 ? 'record' : 'records'}
        </caption>
        <thead>
          <tr>
            <th scope="col">Line</th>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {first.map((r) => (
            <tr key={r.line}>
              <td>{r.line}</td>
              {columns.map((c) => (
                <td key={c} className="cell-truncate">
                  {cell(r.record[c]).slice(0, 60)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Problems({ problems, count }: { problems: ImportProblem[]; count: number }) {
  return (
    <div className="notice notice-error" role="alert">
      <p>
        {count} {count === 1 ? 'record is' : 'records are'} not valid; nothing was imported.
      </p>
      <ul aria-label="Problems">
        {[...problems]
          .sort((a, b) => a.line - b.line)
          .slice(0, IMPORT_LISTED)
          .map((p, i) => (
            <li key={i}>
              Line {p.line}: {p.message}
            </li>
          ))}
      </ul>
      {count > IMPORT_LISTED && <p>… and {count - IMPORT_LISTED} more.</p>}
    </div>
  );
}

/** The file's fields the chosen format does not read: not imported, and no reason to refuse a record. */
function UnreadFields({ format, records }: { format: ImportFormat; records: ImportRecord[] }) {
  const unread = useMemo(
    () =>
      unknownFields(
        format,
        records.map((r) => r.record),
      ),
    [format, records],
  );
  if (!unread.length) return null;
  return (
    <p className="muted" aria-label="Fields not imported">
      Not imported (not read from {FORMAT_LABELS[format].split(' (')[0]}&apos;s records): {unread.join(', ')}
    </p>
  );
}

function Summary({ run, dryRun }: { run: ImportTally; dryRun: boolean }) {
  const { create, match, skip } = run.counts;
  return (
    <div className={`notice ${dryRun ? 'notice-info' : 'notice-success'}`} role="status">
      <p>
        {dryRun
          ? `Dry run: ${create} would be created, ${match} matched, ${skip} skipped. Nothing was written.`
          : `Imported: ${create} created, ${match} matched, ${skip} skipped; ${run.accounts} new ${run.accounts === 1 ? 'account' : 'accounts'}.`}
      </p>
      {run.outcomes.length > 0 && (
        <ul aria-label={dryRun ? 'Records not to be created' : 'Records not created'}>
          {run.outcomes.map((o, i) => (
            <li key={i}>
              Line {o.line}: {o.action} {o.type}: {o.reason}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function ImportSection() {
  const fileId = useId();
  const t = useT();
  const products = useAllProducts();
  const afterKeyChange = useAfterKeyChange();
  const [format, setFormat] = useState<ImportFormat>('keypanel');
  const [product, setProduct] = useState('');
  const [days, setDays] = useState('');
  const [devices, setDevices] = useState('');
  const [notify, setNotify] = useState(true);
  const [file, setFile] = useState<{ name: string; records: ImportRecord[] } | null>(null);
  const [readProblems, setReadProblems] = useState<ImportProblem[]>([]);
  const [stage, setStage] = useState<Stage>({ kind: 'idle' });
  const running = stage.kind === 'running';

  async function choose(e: ChangeEvent<HTMLInputElement>) {
    const chosen = e.target.files?.[0];
    setStage({ kind: 'idle' });
    if (!chosen) return setFile(null);
    const read = readImportFile(await chosen.text());
    setReadProblems(read.problems);
    setFile(read.problems.length ? null : { name: chosen.name, records: read.records });
  }

  const whole = (text: string) => (text.trim() === '' ? undefined : Number(text));

  async function run(dryRun: boolean) {
    if (!file) return;
    const chunks = chunkRecords(file.records);
    const inFile = earlierInFile(chunks);
    const label = dryRun ? 'Checking' : 'Importing';
    const total = file.records.length;
    const result = emptyImportTally();
    const problems: ImportProblem[] = [];
    let problemCount = 0;
    let done = 0;
    setStage({ kind: 'running', label, done, total });
    for (const [i, rows] of chunks.entries()) {
      try {
        const answer = await importChunk({
          format,
          rows,
          dryRun,
          notify,
          product: product || undefined,
          days: whole(days),
          devices: whole(devices),
          ...(dryRun ? { inFile: inFile[i] } : {}),
        });
        addToTally(result, answer);
      } catch (err) {
        const listed = err instanceof ApiError ? (err.details?.problems as ImportProblem[] | undefined) : undefined;
        if (!listed) {
          setStage({ kind: 'failed', message: errorMessage(err, 'The import failed') });
          if (!dryRun) await afterKeyChange();
          return;
        }
        problems.push(...listed);
        problemCount += Number(err instanceof ApiError ? (err.details?.count ?? listed.length) : listed.length);
        // A real run stops at a refused chunk (the chunks before it are in); a dry run checks them all.
        if (!dryRun) break;
      }
      done += rows.length;
      setStage({ kind: 'running', label, done, total });
    }
    if (problems.length) setStage({ kind: 'refused', problems, count: problemCount });
    else setStage({ kind: dryRun ? 'checked' : 'imported', run: result });
    if (!dryRun) await afterKeyChange();
  }

  const active = (products.data ?? []).filter((p) => p.isActive);
  return (
    <section aria-labelledby={`${fileId}-title`} className="admin-section import-section">
      <div className="section-head">
        <div>
          <h2 id={`${fileId}-title`}>{t('admin.import.title')}</h2>
          <p className="muted">{t('admin.import.intro')}</p>
        </div>
      </div>
      <form className="card import-form" onSubmit={(e) => e.preventDefault()} aria-label={t('admin.import.title')}>
        <div className="form-grid">
          <SelectField
            label={t('admin.import.formatLabel')}
            value={format}
            onChange={(e) => setFormat(e.target.value as ImportFormat)}
            disabled={running}
          >
            {IMPORT_FORMATS.map((f) => (
              <option key={f} value={f}>
                {t(FORMAT_LABELS[f])}
              </option>
            ))}
          </SelectField>
          <SelectField
            label={t('admin.import.product')}
            value={product}
            onChange={(e) => setProduct(e.target.value)}
            disabled={running}
            hint={t('admin.import.productHint')}
          >
            <option value="">{t('admin.import.fromFile')}</option>
            {active.map((p) => (
              <option key={p._id} value={p.keyTag}>
                {p.name} ({p.keyTag})
              </option>
            ))}
          </SelectField>
          <Field
            label={t('admin.import.days')}
            type="number"
            inputMode="numeric"
            min={1}
            value={days}
            onChange={(e) => setDays(e.target.value)}
            disabled={running}
            hint={t('admin.import.daysHint')}
          />
          <Field
            label={t('admin.import.devices')}
            type="number"
            inputMode="numeric"
            min={1}
            value={devices}
            onChange={(e) => setDevices(e.target.value)}
            disabled={running}
            hint={t('admin.import.devicesHint')}
          />
        </div>
        <CheckboxField label={t('admin.import.notify')} checked={notify} onChange={(e) => setNotify(e.target.checked)} disabled={running} />
        <div className="field">
          <label htmlFor={fileId}>{t('admin.import.file')}</label>
          <input
            id={fileId}
            type="file"
            accept=".csv,.json,.jsonl,.ndjson,text/csv,application/json"
            onChange={asyncHandler(choose)}
            disabled={running}
          />
        </div>
        {readProblems.length > 0 && <Problems problems={readProblems} count={readProblems.length} />}
        {file && <Preview records={file.records} />}
        {file && <UnreadFields format={format} records={file.records} />}
        <div className="button-row">
          <button type="button" className="btn btn-secondary" disabled={!file || running} onClick={asyncHandler(() => run(true))}>
            {t('admin.import.check')}
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={!file || running || stage.kind !== 'checked'}
            onClick={asyncHandler(() => run(false))}
          >
            {t('admin.import.submit')}
          </button>
        </div>
        <div aria-live="polite">
          {stage.kind === 'running' && (
            <p>
              <progress value={stage.done} max={stage.total} aria-label={`${stage.label} records`} /> {stage.label} {stage.done} of{' '}
              {stage.total} records…
            </p>
          )}
        </div>
        {stage.kind === 'checked' && <Summary run={stage.run} dryRun />}
        {stage.kind === 'imported' && <Summary run={stage.run} dryRun={false} />}
        {stage.kind === 'refused' && <Problems problems={stage.problems} count={stage.count} />}
        {stage.kind === 'failed' && (
          <p className="notice notice-error" role="alert">
            {stage.message}
          </p>
        )}
      </form>
    </section>
  );
}
