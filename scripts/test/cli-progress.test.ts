// The CLI's progress lines in a log (stderr not a terminal): each state printed once, so a run that
// finished between two ticks does not print its last line twice (issue 47).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { progressBar } from '../../cli/lib/progress';

afterEach(() => vi.restoreAllMocks());

function captureStderr() {
  const lines: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  return lines;
}

describe('progress in a log', () => {
  it('prints the finished state once', () => {
    const lines = captureStderr();
    const progress = progressBar('Importing', 3, 'records');
    progress.advance(3);
    progress.done();
    expect(lines).toEqual(['Importing 3/3 records (100%)\n']);
  });

  it('still prints the final state when it moved since the last line', () => {
    const lines = captureStderr();
    const progress = progressBar('Importing', 4, 'records');
    progress.advance(1);
    progress.advance(3);
    progress.done();
    expect(lines).toEqual(['Importing 1/4 records (25%)\n', 'Importing 4/4 records (100%)\n']);
  });
});
