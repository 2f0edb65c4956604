// CPU time the runtime spent, read from Linux's /proc: workerd runs both Workers and local D1 on one
// thread, so its CPU time per answered request is the cost of a request, steadier than requests per
// second when other programs share the machine. Elsewhere (no /proc) it reads as unknown.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** The workerd processes Miniflare started for this benchmark (children of this process), oldest first; none without /proc. */
export function findRuntimePids(): number[] {
  const found: number[] = [];
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = readStat(Number(entry));
      if (stat && stat.comm === 'workerd' && stat.ppid === process.pid) found.push(Number(entry));
    }
  } catch {
    // No /proc here.
  }
  return found.sort((a, b) => a - b);
}

function readStat(pid: number): { comm: string; ppid: number; cpuMs: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The name is in parentheses and may hold spaces; the fields after it are space-separated.
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    // After the name: state(0) ppid(1) ... utime(11) stime(12), in clock ticks.
    return { comm, ppid: Number(fields[1]), cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND };
  } catch {
    return null;
  }
}

/** Milliseconds of CPU the process has used so far, or null when unknown. */
export const cpuMsOf = (pid: number | null) => (pid === null ? null : (readStat(pid)?.cpuMs ?? null));

/**
 * Counts the instructions the process runs from now until `stop()`, with Linux's `perf stat` where it
 * is installed and the machine exposes the counter: unlike CPU time, the count for the same work
 * hardly moves when other programs share the machine. `stop()` answers null where it cannot count.
 */
export function countInstructions(pid: number | null): { stop(): Promise<number | null> } {
  if (pid === null) return { stop: () => Promise.resolve(null) };
  let child: ChildProcess;
  try {
    child = spawn('perf', ['stat', '-x', ',', '-e', 'instructions', '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch {
    return { stop: () => Promise.resolve(null) };
  }
  let output = '';
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => {
    child.on('error', () => resolve());
    child.on('close', () => resolve());
  });
  return {
    async stop() {
      child.kill('SIGINT');
      await exited;
      // CSV: "<count>,<unit>,instructions,..."; "<not supported>" or "<not counted>" where it cannot count.
      const line = output.split('\n').find((l) => l.includes(',instructions'));
      const count = Number(line?.split(',')[0]);
      return Number.isFinite(count) && count > 0 ? count : null;
    },
  };
}
