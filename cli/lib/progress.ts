// Progress on stderr, never on stdout. On a terminal, one line redrawn in place (unless the data is
// printed to that terminal too); in a log file or a pipe, a plain line at most once a second and a
// last one at the end.
import { isQuiet } from './output';

const BAR_WIDTH = 24;
const LINE_INTERVAL_MS = 1000;

/** `done` draws the final state; `stop`, after an error, only ends a line already drawn. */
export type Progress = { advance(by: number): void; done(): void; stop(): void };

/** `total` null when it is not known yet (the first page of a list tells it): `setTotal` then. */
export function progressBar(label: string, total: number | null, unit: string): Progress & { setTotal(total: number): void } {
  const stream = process.stderr;
  // When the data itself goes to the same terminal, its rows show the progress: a bar redrawn
  // between them would garble both. Then only non-terminal stderr (a log) gets progress lines.
  const dataOnTerminal = process.stdout.isTTY === true;
  const live = stream.isTTY === true && !dataOnTerminal;
  const silent = stream.isTTY === true && dataOnTerminal;
  let current = 0;
  let lastLine = 0;
  let lastText = '';
  let finished = false;
  let drawn = false;

  const text = () => {
    if (total === null || total === 0) return `${label}: ${current} ${unit}`;
    const share = Math.min(1, current / total);
    const filled = Math.round(share * BAR_WIDTH);
    const bar = live ? ` [${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]` : '';
    return `${label}${bar} ${current}/${total} ${unit} (${Math.floor(share * 100)}%)`;
  };

  function draw(final: boolean) {
    if (isQuiet() || silent) return;
    drawn = true;
    if (live) {
      stream.write(`\r\u001b[2K${text()}${final ? '\n' : ''}`);
      return;
    }
    // A log gets each state once: the last line is not printed again when nothing moved since.
    const now = Date.now();
    const line = text();
    if (line !== lastText && (final || now - lastLine >= LINE_INTERVAL_MS)) {
      lastLine = now;
      lastText = line;
      stream.write(`${line}\n`);
    }
  }

  return {
    setTotal(value) {
      total = value;
    },
    advance(by) {
      current += by;
      draw(false);
    },
    done() {
      if (finished) return;
      finished = true;
      draw(true);
    },
    stop() {
      if (finished) return;
      finished = true;
      if (drawn && live) stream.write('\n');
    },
  };
}

/**
 * Writes every page of a paged list to `out`, with the progress bar, until the last page; on any
 * failure the output is abandoned (a partial CSV is never left looking complete) and the error thrown.
 */
export async function writeAllPages<T>(
  out: { write(row: T): Promise<void>; end(): Promise<unknown>; abort(): Promise<void> },
  progress: Progress & { setTotal(total: number): void },
  fetchPage: (page: number) => Promise<{ items: T[]; total: number; totalPages: number }>,
): Promise<void> {
  try {
    for (let page = 1, totalPages = 1; page <= totalPages; page++) {
      const answer = await fetchPage(page);
      totalPages = answer.totalPages;
      progress.setTotal(answer.total);
      for (const item of answer.items) await out.write(item);
      progress.advance(answer.items.length);
    }
    await out.end();
    progress.done();
  } catch (err) {
    await out.abort();
    progress.stop();
    throw err;
  }
}
