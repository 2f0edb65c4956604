// The open loop the benchmark's p99 verdicts read (paced.ts), against a local server whose speed is
// known: it keeps to its schedule, and a request that waited for the sender counts its wait.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { combine } from './load';
import { pacedRun } from './paced';

/** Answers every request after `delayMs`, with its path, so a check can see what was sent. */
let delayMs = 0;
let received = 0;
const server = http.createServer((req, res) => {
  received++;
  setTimeout(() => res.end(JSON.stringify({ path: req.url })), delayMs);
});
let url: URL;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const expectOk = (seen: string[]) => ({
  statuses: [200],
  check: (b: string) => b.includes('"path"'),
  record: (b: string) => void seen.push(b),
});

describe('the paced load', () => {
  it('sends its rate for its time, whatever the answers take, and checks and records every answer', async () => {
    delayMs = 30;
    received = 0;
    const seen: string[] = [];
    let n = 0;
    const run = await pacedRun(url, () => ({ method: 'GET', path: `/r/${n++}` }), expectOk(seen), { rate: 200, seconds: 0.5 });
    expect(received).toBe(100);
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
    delayMs = 20;
    const run = await pacedRun(url, () => ({ method: 'GET', path: '/slow' }), expectOk([]), { rate: 100, seconds: 0.5, maxSockets: 1 });
    const m = combine([run]);
    expect(run.requests).toBe(50);
    // The last of 50 was due at 490 ms and answered after about 50 × 20 ms = 1 s.
    expect(m.max).toBeGreaterThan(400);
    expect(m.p50).toBeGreaterThan(100);
  });

  it('counts wrong answers as errors, with the first one shown', async () => {
    delayMs = 0;
    const run = await pacedRun(url, () => ({ method: 'GET', path: '/x' }), { statuses: [201] }, { rate: 100, seconds: 0.1 });
    expect(run.errors).toBe(10);
    expect(run.firstError).toMatch(/^200 /);
  });

  it('refuses a rate or a duration that is not positive', async () => {
    await expect(pacedRun(url, () => ({ method: 'GET', path: '/' }), { statuses: [200] }, { rate: 0, seconds: 1 })).rejects.toThrow(
      /positive rate/,
    );
    await expect(
      pacedRun(url, () => ({ method: 'GET', path: '/' }), { statuses: [200] }, { rate: 10, seconds: Number.NaN }),
    ).rejects.toThrow(/positive rate/);
  });
});
