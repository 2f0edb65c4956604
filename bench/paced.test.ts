// The open loop the benchmark's p99 verdicts read (paced.ts), against local servers whose speed is
// known: it keeps to its schedule, a request that waited for the sender counts its wait, and the
// targets run at once, each with its own answers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { combine } from './load';
import { pacedRuns, type PacedTarget } from './paced';

/** A server that answers every request after `delay.ms`, with its path, and notes when each came. */
function server() {
  const delay = { ms: 0 };
  const arrivals: number[] = [];
  const s = http.createServer((req, res) => {
    arrivals.push(performance.now());
    setTimeout(() => res.end(JSON.stringify({ path: req.url })), delay.ms);
  });
  return { s, delay, arrivals, url: null as URL | null };
}
const fast = server();
const slow = server();

beforeAll(async () => {
  for (const one of [fast, slow]) {
    await new Promise<void>((resolve) => one.s.listen(0, '127.0.0.1', resolve));
    one.url = new URL(`http://127.0.0.1:${(one.s.address() as AddressInfo).port}`);
  }
});
afterAll(() => Promise.all([fast, slow].map((one) => new Promise<void>((resolve) => one.s.close(() => resolve())))));

const target = (one: typeof fast, seen: string[] = [], statuses = [200]): PacedTarget => {
  let n = 0;
  return {
    url: one.url!,
    next: () => ({ method: 'GET', path: `/r/${n++}` }),
    expect: { statuses, check: (b) => b.includes('"path"'), record: (b) => void seen.push(b) },
  };
};

describe('the paced load', () => {
  it('sends its rate for its time, whatever the answers take, and checks and records every answer', async () => {
    fast.delay.ms = 30;
    fast.arrivals.length = 0;
    const seen: string[] = [];
    const [run] = await pacedRuns([target(fast, seen)], { rate: 200, seconds: 0.5 });
    expect(fast.arrivals).toHaveLength(100);
    expect(run.requests).toBe(100);
    expect(seen).toHaveLength(100);
    expect(run.errors).toBe(0);
    expect(run.unanswered).toBe(0);
    // Answers take 30 ms and the requests overlap (200 a second): none waited for another.
    const m = combine([run]);
    expect(m.p50).toBeGreaterThanOrEqual(30);
    expect(m.p99).toBeLessThan(200);
  });

  it('counts a request from when it was due, so a sender held up makes the latency, not the rate, worse', async () => {
    // One connection and 20 ms an answer: at most 50 a second go through, 100 a second are due. A
    // closed loop would time each answer at 20 ms; the requests due meanwhile waited their turn.
    slow.delay.ms = 20;
    const [run] = await pacedRuns([target(slow)], { rate: 100, seconds: 0.5, maxSockets: 1 });
    const m = combine([run]);
    expect(run.requests).toBe(50);
    // The last of 50 was due at 490 ms and answered after about 50 × 20 ms = 1 s.
    expect(m.max).toBeGreaterThan(400);
    expect(m.p50).toBeGreaterThan(100);
  });

  it('runs its targets at once, in turns on one schedule, each with its own answers', async () => {
    fast.delay.ms = 0;
    slow.delay.ms = 40;
    fast.arrivals.length = 0;
    slow.arrivals.length = 0;
    const [quick, late] = await pacedRuns([target(fast), target(slow)], { rate: 100, seconds: 0.4 });
    expect([quick.requests, late.requests]).toEqual([40, 40]);
    expect([fast.arrivals.length, slow.arrivals.length]).toEqual([40, 40]);
    // At once, not one after the other: each target's first request came before the other's last.
    expect(slow.arrivals[0]).toBeLessThan(fast.arrivals.at(-1)!);
    expect(fast.arrivals[0]).toBeLessThan(slow.arrivals.at(-1)!);
    expect(combine([late]).p50).toBeGreaterThanOrEqual(40);
    expect(combine([quick]).p50).toBeLessThan(combine([late]).p50);
  });

  it('counts wrong answers as errors, with the first one shown', async () => {
    fast.delay.ms = 0;
    const [run] = await pacedRuns([target(fast, [], [201])], { rate: 100, seconds: 0.1 });
    expect(run.errors).toBe(10);
    expect(run.firstError).toMatch(/^200 /);
  });

  it('refuses a rate or a duration that is not positive, or no target', async () => {
    await expect(pacedRuns([target(fast)], { rate: 0, seconds: 1 })).rejects.toThrow(/positive rate/);
    await expect(pacedRuns([target(fast)], { rate: 10, seconds: Number.NaN })).rejects.toThrow(/positive rate/);
    await expect(pacedRuns([], { rate: 10, seconds: 1 })).rejects.toThrow(/a target/);
  });
});
