// The summary `npm run bench -- --profile` writes beside each profile, on a small profile made by
// hand: a handler that calls a recursive router (which calls into D1's client) and a native signature.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleModules, formatSummary, summarise, type CpuProfile } from './profile-summary';

const fixture = JSON.parse(readFileSync(path.join(import.meta.dirname, 'fixtures', 'tiny.cpuprofile'), 'utf8')) as CpuProfile;
// Lines 1-3 are the router's package, lines 4 on the project's own handler (0-based in profiles).
const bundle = ['// node_modules/hono/dist/router.js', 'function route() {}', '', '// worker/app.ts', '', 'function handle() {}'].join(
  '\n',
);
const moduleOf = bundleModules(bundle, 'index.js');

describe('profile summary', () => {
  const s = summarise(fixture, moduleOf);
  const fn = (name: string) => s.functions.find((f) => f.name === name);

  it('leaves idle time out of the busy time', () => {
    expect(s.sampledMs).toBeCloseTo(2.1);
    expect(s.busyMs).toBeCloseTo(1.0);
  });

  it('gives each function its self time and its total time', () => {
    expect(fn('handle index.js:5')).toMatchObject({ selfMs: 0.1, totalMs: 0.7 });
    expect(fn('sign')).toMatchObject({ selfMs: 0.2, totalMs: 0.2 });
    expect(fn('(anonymous) cloudflare-internal:d1-api:147')).toMatchObject({ selfMs: 0.2, totalMs: 0.2 });
    expect(fn('(garbage collector)')?.selfShare).toBeCloseTo(0.3);
    expect(fn('handle index.js:5')?.totalShare).toBeCloseTo(0.7);
  });

  it('counts a recursive function once per sample toward its total', () => {
    // route is on the stack of four samples, twice in three of them.
    expect(fn('route index.js:2')?.selfMs).toBeCloseTo(0.2);
    expect(fn('route index.js:2')?.totalMs).toBeCloseTo(0.4);
  });

  it('groups self time by the bundle module, a package as its name', () => {
    const share = Object.fromEntries(s.modules.map((m) => [m.module, m.selfMs]));
    expect(share).toEqual({
      hono: expect.closeTo(0.2) as number,
      'worker/app.ts': expect.closeTo(0.1) as number,
      'cloudflare-internal:d1-api': expect.closeTo(0.2) as number,
      '(runtime, native)': expect.closeTo(0.2) as number,
      '(garbage collector)': expect.closeTo(0.3) as number,
    });
  });

  it('writes the tables, largest first', () => {
    const text = formatSummary('tiny', s, 3);
    expect(text).toContain('tiny: 1 ms busy of 2 ms sampled');
    const self = text.split('Self time (in the function itself)')[1].split('\n\n')[0];
    expect(self.split('\n').slice(2)).toHaveLength(3);
    const total = text.split('Total time (in the function and what it called)')[1].split('\n\n')[0];
    expect(total.split('\n')[2]).toMatch(/70\.0%\s+0\.7\s+handle index\.js:5/);
  });

  it('names the stretches the thread could not be sampled, longest first', () => {
    expect(s.stalls).toEqual([]);
    expect(formatSummary('tiny', s)).toMatch(/Stalls: [^\n]*\n[^\n]*\n {2}none\n$/);
    // The profiler samples every 0.2 ms: 45 ms and then 25 ms without a sample are pauses of the thread.
    const paused = { ...fixture, timeDeltas: fixture.timeDeltas.map((dt, i) => (i === 4 ? 45_000 : i === 9 ? 25_000 : dt)) };
    const stalls = summarise(paused, moduleOf).stalls;
    expect(stalls.map(({ ms, before }) => ({ ms, before }))).toEqual([
      { ms: 45, before: 'handle index.js:5' },
      { ms: 25, before: 'sign' },
    ]);
    expect(stalls[0].atMs).toBeCloseTo(46.2);
    expect(formatSummary('paused', summarise(paused, moduleOf))).toMatch(/\n {6}45\.0 {5}0\.05 s {2}handle index\.js:5\n/);
  });
});
