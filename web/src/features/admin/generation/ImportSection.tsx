// Import licences (owner): a file from another system (Keygen, Lemon Squeezy, Gumroad) or KeyPanel's
// own, read in the browser; a preview of its first records; a dry run of every chunk that counts
// what would be created, matched and skipped, the devices that come with the keys, the perpetual keys
// and the accounts mailed (and refuses a file with a bad record, by line); then the import, chunk by
// chunk, with its progress. Its position is kept in localStorage after every chunk, under the file's
// and the options' fingerprint: an import cut off (the tab closed, the server gone) resumes where it
// stopped when the same file is imported again. Each run's outcomes, every record's, download as CSV.
import { useId, useMemo, useState, type ChangeEvent } from 'react';
import {
  IMPORT_FORMATS,
  IMPORT_LISTED,
  addToTally,
  chunkRecords,
  emptyImportTally,
  importFingerprint,
  inFileFor,
  readImportFile,
  unknownFields,
  reportHeader,
  reportRows,
  sendChunks,
  startPosition,
  type ImportFormat,
  type ImportPosition,
  type ImportProblem,
  type ImportRecord,
  type ImportResult,
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

type Story = ImportResult['story'];
type Run = ImportTally & { story: Story; mail: ImportResult['signInMail'] | null };

type Stage =
  | { kind: 'idle' }
  | { kind: 'running'; label: MessageId; done: number; total: number }
  | { kind: 'checked'; run: Run }
  | { kind: 'imported'; run: Run; resumed: boolean }
  | { kind: 'refused'; problems: ImportProblem[]; count: number }
  | { kind: 'failed'; message: string; resumable: boolean };

/** Where an import of a file stands, kept in this browser between visits. */
const POSITION_PREFIX = 'keypanel-import:';
function savedPosition(fingerprint: string): ImportPosition | null {
  try {
    const saved = JSON.parse(localStorage.getItem(POSITION_PREFIX + fingerprint) ?? 'null') as ImportPosition | null;
    return saved && typeof saved.done === 'number' && saved.done > 0 && saved.done < saved.chunks ? saved : null;
  } catch {
    return null;
  }
}
function keepPosition(position: ImportPosition | null, fingerprint: string) {
  try {
    if (position) localStorage.setItem(POSITION_PREFIX + fingerprint, JSON.stringify(position));
    else localStorage.removeItem(POSITION_PREFIX + fingerprint);
  } catch {
    // Storage full or off: the import goes on, without a position to resume from.
  }
}

/** A record's value as a preview cell shows it. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function Preview({ records }: { records: ImportRecord[] }) {
  const t = useT();
  const first = records.slice(0, PREVIEW_ROWS);
  const columns = [...new Set(first.flatMap((r) => Object.keys(r.record)))].slice(0, PREVIEW_COLUMNS);
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="muted">{t('admin.import.preview.caption', { shown: first.length, count: records.length })}</caption>
        <thead>
          <tr>
            <th scope="col">{t('admin.import.preview.line')}</th>
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
  const t = useT();
  return (
    <div className="notice notice-error" role="alert">
      <p>{t('admin.import.problems.count', { count })}</p>
      <ul aria-label={t('admin.import.problems.label')}>
        {[...problems]
          .sort((a, b) => a.line - b.line)
          .slice(0, IMPORT_LISTED)
          .map((p, i) => (
            <li key={i}>{t('admin.import.lineMessage', { line: p.line, message: p.message })}</li>
          ))}
      </ul>
      {count > IMPORT_LISTED && <p>{t('admin.import.problems.more', { count: count - IMPORT_LISTED })}</p>}
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
  const t = useT();
  if (!unread.length) return null;
  return (
    <p className="muted" aria-label={t('admin.import.unread.label')}>
      {t('admin.import.unread', { system: t(FORMAT_LABELS[format]).split(' (')[0], fields: unread.join(', ') })}
    </p>
  );
}

function Summary({ run, dryRun, report }: { run: Run; dryRun: boolean; report: string | null }) {
  const t = useT();
  const { create, match, skip } = run.counts;
  const { devices, perpetual, accounts } = run.story;
  const mailed = t(
    run.mail === 'sent'
      ? 'admin.import.mail.sent'
      : run.mail === 'not-configured'
        ? 'admin.import.mail.notConfigured'
        : 'admin.import.mail.off',
  );
  return (
    <div className={`notice ${dryRun ? 'notice-info' : 'notice-success'}`} role="status">
      <p>
        {dryRun
          ? t('admin.import.summary.dryRun', { create, match, skip })
          : t('admin.import.summary.imported', { create, match, skip, accounts: run.accounts })}
      </p>
      <p>
        {dryRun
          ? t('admin.import.story.dryRun', { devices, perpetual, accounts, mailed })
          : t('admin.import.story.imported', { devices, perpetual, mailed })}
      </p>
      {run.outcomes.length > 0 && (
        <ul aria-label={t(dryRun ? 'admin.import.outcomes.dryRun' : 'admin.import.outcomes.imported')}>
          {run.outcomes.map((o, i) => (
            <li key={i}>{t('admin.import.outcome', { line: o.line, action: o.action, type: o.type, reason: o.reason })}</li>
          ))}
        </ul>
      )}
      {report && (
        <p>
          <a className="btn btn-secondary" href={report} download={dryRun ? 'import-dry-run-report.csv' : 'import-report.csv'}>
            {t('admin.import.downloadReport')}
          </a>
        </p>
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
  const [file, setFile] = useState<{ name: string; text: string; records: ImportRecord[] } | null>(null);
  const [readProblems, setReadProblems] = useState<ImportProblem[]>([]);
  const [stage, setStage] = useState<Stage>({ kind: 'idle' });
  const [resumable, setResumable] = useState<ImportPosition | null>(null);
  const [report, setReport] = useState<string | null>(null);
  const running = stage.kind === 'running';

  const whole = (text: string) => (text.trim() === '' ? undefined : Number(text));
  const options = () => ({ format, product: product || undefined, days: whole(days), devices: whole(devices), notify });
  const fingerprintOf = (text: string) => importFingerprint(text, { ...options(), url: location.origin });

  /** The report of a run, every record's outcome, as a file to download (the last one replaced). */
  function offerReport(text: string | null) {
    if (report) URL.revokeObjectURL(report);
    setReport(text === null ? null : URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' })));
  }

  async function choose(e: ChangeEvent<HTMLInputElement>) {
    const chosen = e.target.files?.[0];
    setStage({ kind: 'idle' });
    offerReport(null);
    if (!chosen) return setFile(null);
    const text = await chosen.text();
    const read = readImportFile(text);
    setReadProblems(read.problems);
    setFile(read.problems.length ? null : { name: chosen.name, text, records: read.records });
    setResumable(read.problems.length ? null : savedPosition(await fingerprintOf(text)));
  }

  async function check() {
    if (!file) return;
    const chunks = chunkRecords(file.records);
    const told = inFileFor(format, chunks, whole(devices));
    const total = file.records.length;
    const result: Run = { ...emptyImportTally(), story: { devices: 0, perpetual: 0, accounts: 0 }, mail: null };
    const problems: ImportProblem[] = [];
    let problemCount = 0;
    let done = 0;
    let csv = reportHeader();
    setStage({ kind: 'running', label: 'admin.import.stage.checking', done, total });
    for (const [i, rows] of chunks.entries()) {
      try {
        const answer = await importChunk({ ...options(), rows, dryRun: true, inFile: told[i] });
        addToTally(result, answer);
        for (const k of ['devices', 'perpetual', 'accounts'] as const) result.story[k] += answer.story[k];
        if (answer.story.accounts) result.mail = answer.signInMail;
        csv += reportRows(answer.outcomes);
      } catch (err) {
        const listed = err instanceof ApiError ? (err.details?.problems as ImportProblem[] | undefined) : undefined;
        if (!listed) return setStage({ kind: 'failed', message: errorMessage(err, t('admin.import.failed.check')), resumable: false });
        problems.push(...listed);
        problemCount += Number(err instanceof ApiError ? (err.details?.count ?? listed.length) : listed.length);
      }
      done += rows.length;
      setStage({ kind: 'running', label: 'admin.import.stage.checking', done, total });
    }
    if (problems.length) return setStage({ kind: 'refused', problems, count: problemCount });
    offerReport(csv);
    setStage({ kind: 'checked', run: result });
  }

  async function importFile() {
    if (!file) return;
    const chunks = chunkRecords(file.records);
    const fingerprint = await fingerprintOf(file.text);
    const saved = savedPosition(fingerprint);
    const from = saved && saved.chunks === chunks.length ? saved : startPosition(fingerprint, chunks.length);
    const total = file.records.length;
    let done = chunks.slice(0, from.done).reduce((n, c) => n + c.length, 0);
    let mail: Run['mail'] = null;
    // The report of this run (a resumed one: of the chunks it sends).
    let csv = reportHeader();
    setStage({ kind: 'running', label: from.done ? 'admin.import.stage.resuming' : 'admin.import.stage.importing', done, total });
    keepPosition(from, fingerprint);
    try {
      const position = await sendChunks(
        chunks,
        from,
        (rows) => importChunk({ ...options(), rows, dryRun: false }),
        (next, answer) => {
          keepPosition(next, fingerprint);
          csv += reportRows(answer.outcomes);
          if (answer.accountsCreated) mail = answer.signInMail;
          done += answer.counts.create + answer.counts.match + answer.counts.skip;
          setStage({ kind: 'running', label: from.done ? 'admin.import.stage.resuming' : 'admin.import.stage.importing', done, total });
        },
      );
      keepPosition(null, fingerprint);
      setResumable(null);
      offerReport(csv);
      setStage({
        kind: 'imported',
        resumed: from.done > 0,
        run: { counts: position.counts, accounts: position.accounts, outcomes: position.listed, story: position.story, mail },
      });
    } catch (err) {
      const listed = err instanceof ApiError ? (err.details?.problems as ImportProblem[] | undefined) : undefined;
      if (listed)
        setStage({
          kind: 'refused',
          problems: listed,
          count: Number(err instanceof ApiError ? (err.details?.count ?? listed.length) : listed.length),
        });
      else setStage({ kind: 'failed', message: errorMessage(err, t('admin.import.failed.import')), resumable: true });
      setResumable(savedPosition(fingerprint));
    } finally {
      await afterKeyChange();
    }
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
        {file && resumable && !running && (
          <p className="notice notice-info" role="note">
            {t('admin.import.resumeNotice', { done: resumable.done, chunks: resumable.chunks, created: resumable.counts.create })}
          </p>
        )}
        <div className="button-row">
          <button type="button" className="btn btn-secondary" disabled={!file || running} onClick={asyncHandler(check)}>
            {t('admin.import.check')}
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={!file || running || (stage.kind !== 'checked' && !resumable)}
            onClick={asyncHandler(importFile)}
          >
            {resumable && stage.kind !== 'checked' ? t('admin.import.resume') : t('admin.import.submit')}
          </button>
        </div>
        <div aria-live="polite">
          {stage.kind === 'running' && (
            <p>
              <progress value={stage.done} max={stage.total} aria-label={t('admin.import.progressLabel', { stage: t(stage.label) })} />{' '}
              {t('admin.import.progress', { stage: t(stage.label), done: stage.done, total: stage.total })}
            </p>
          )}
        </div>
        {stage.kind === 'checked' && <Summary run={stage.run} dryRun report={report} />}
        {stage.kind === 'imported' && <Summary run={stage.run} dryRun={false} report={report} />}
        {stage.kind === 'imported' && stage.resumed && <p className="muted">{t('admin.import.resumedNote')}</p>}
        {stage.kind === 'refused' && <Problems problems={stage.problems} count={stage.count} />}
        {stage.kind === 'failed' && (
          <p className="notice notice-error" role="alert">
            {stage.message}
            {stage.resumable && resumable ? ` ${t('admin.import.failed.resume')}` : ''}
          </p>
        )}
      </form>
    </section>
  );
}
