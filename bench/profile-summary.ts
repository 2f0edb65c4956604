// A short text summary of a V8 CPU profile (`.cpuprofile`, as Chrome DevTools saves it): the
// functions with the most self time and the most total time, and self time by the module of the
// bundle each function came from, so a profile of `npm run bench -- --profile` reads without DevTools.

export type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number };
  children?: number[];
};
export type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

/** V8's pseudo-frames for time spent in no JavaScript of the isolate's own. */
const NOT_BUSY = new Set(['(idle)', '(program)', '(root)']);

export type FunctionTime = { name: string; selfMs: number; totalMs: number; selfShare: number; totalShare: number };
export type ModuleTime = { module: string; selfMs: number; share: number };
export type ProfileSummary = {
  /** Sampled time in which the isolate ran JavaScript, its garbage collector included. */
  busyMs: number;
  /** All sampled time, idle included. */
  sampledMs: number;
  functions: FunctionTime[];
  modules: ModuleTime[];
  /** The longest stretches with no sample, longest first (see STALL_MS). */
  stalls: Stall[];
};

/**
 * A stretch of at least this long with no sample: the profiler samples every 0.2 ms, so a gap this
 * long means the thread was held where it could not sample: a garbage collection's pause, or, in
 * workerd, another isolate on the same thread. Every request in flight waits through it.
 */
export const STALL_MS = 20;
/** A stretch with no sample: when it ended (ms from the profile's start), how long, and the frame sampled before it. */
export type Stall = { atMs: number; ms: number; before: string };

/** Finds the module a line of a bundle belongs to (bundleModules). */
export type ModuleOf = (url: string, lineNumber: number) => string | null;

const frameName = (frame: ProfileNode['callFrame']) =>
  `${frame.functionName || '(anonymous)'}${frame.url ? ` ${frame.url.split('/').pop()}:${frame.lineNumber + 1}` : ''}`;

/**
 * Self time (in the function itself) and total time (in it or anything it called) of every
 * function, as shares of the busy time. A function on a sample's stack more than once (recursion)
 * counts once toward its total.
 */
export function summarise(p: CpuProfile, moduleOf: ModuleOf = () => null): ProfileSummary {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const modules = new Map<string, number>();
  let busy = 0;
  let sampled = 0;
  const stalls: Stall[] = [];
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    sampled += dt;
    const previous = byId.get(p.samples[i - 1]);
    if (dt >= STALL_MS * 1000 && previous) stalls.push({ atMs: sampled / 1000, ms: dt / 1000, before: frameName(previous.callFrame) });
    const leaf = byId.get(id);
    if (!leaf || NOT_BUSY.has(leaf.callFrame.functionName)) return;
    busy += dt;
    const leafName = frameName(leaf.callFrame);
    self.set(leafName, (self.get(leafName) ?? 0) + dt);
    const module = moduleOf(leaf.callFrame.url, leaf.callFrame.lineNumber) ?? runtimeModule(leaf.callFrame);
    modules.set(module, (modules.get(module) ?? 0) + dt);
    const onStack = new Set<string>();
    for (let node: ProfileNode | undefined = leaf; node; node = byId.get(parent.get(node.id) ?? -1)) {
      if (!NOT_BUSY.has(node.callFrame.functionName)) onStack.add(frameName(node.callFrame));
    }
    for (const name of onStack) total.set(name, (total.get(name) ?? 0) + dt);
  });
  const share = (us: number) => (busy ? us / busy : 0);
  return {
    busyMs: busy / 1000,
    sampledMs: sampled / 1000,
    functions: [...total.entries()].map(([name, us]) => ({
      name,
      selfMs: (self.get(name) ?? 0) / 1000,
      totalMs: us / 1000,
      selfShare: share(self.get(name) ?? 0),
      totalShare: share(us),
    })),
    modules: [...modules.entries()]
      .map(([module, us]) => ({ module, selfMs: us / 1000, share: share(us) }))
      .sort((a, b) => b.selfMs - a.selfMs),
    stalls: stalls.sort((a, b) => b.ms - a.ms),
  };
}

/** Code outside the bundle: the runtime's own JavaScript by its URL, its native functions as one. */
const runtimeModule = (frame: ProfileNode['callFrame']) =>
  frame.url || (frame.functionName.startsWith('(') ? frame.functionName : '(runtime, native)');

/**
 * The modules of an esbuild bundle by line: esbuild opens each module's code with a comment naming
 * its source (`// node_modules/hono/dist/hono-base.js`, `// worker/app.ts`). A package's files are
 * grouped as the package; the project's own keep their path.
 */
export function bundleModules(source: string, bundleName: string): ModuleOf {
  const starts: { line: number; module: string }[] = [];
  source.split('\n').forEach((text, line) => {
    const m = /^\/\/ ((?:\.\.\/)*[\w@.-][\w@./-]*\.[cm]?[jt]sx?)$/.exec(text);
    if (m) starts.push({ line, module: packageOf(m[1]) });
  });
  return (url, lineNumber) => {
    if (!url.endsWith(bundleName)) return null;
    let lo = 0;
    let hi = starts.length - 1;
    let found: string | null = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid].line <= lineNumber) {
        found = starts[mid].module;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
}

function packageOf(file: string): string {
  const at = file.lastIndexOf('node_modules/');
  if (at < 0) return file.replace(/^(\.\.\/)+/, '');
  const parts = file.slice(at + 'node_modules/'.length).split('/');
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

const pct = (share: number) => `${(share * 100).toFixed(1).padStart(5)}%`;
const ms = (value: number) => value.toFixed(1).padStart(8);

/** The summary as text: the top `count` functions by self time, by total time, and the modules. */
export function formatSummary(title: string, s: ProfileSummary, count = 20): string {
  const bySelf = [...s.functions].filter((f) => f.selfMs > 0).sort((a, b) => b.selfMs - a.selfMs);
  const byTotal = [...s.functions].sort((a, b) => b.totalMs - a.totalMs);
  const lines = [
    `${title}: ${s.busyMs.toFixed(0)} ms busy of ${s.sampledMs.toFixed(0)} ms sampled`,
    '',
    'Self time (in the function itself)',
    '   share       ms  function',
    ...bySelf.slice(0, count).map((f) => `  ${pct(f.selfShare)} ${ms(f.selfMs)}  ${f.name}`),
    '',
    'Total time (in the function and what it called)',
    '   share       ms  function',
    ...byTotal.slice(0, count).map((f) => `  ${pct(f.totalShare)} ${ms(f.totalMs)}  ${f.name}`),
  ];
  lines.push('', 'Self time by module', '   share       ms  module');
  lines.push(...s.modules.slice(0, count).map((m) => `  ${pct(m.share)} ${ms(m.selfMs)}  ${m.module}`));
  lines.push(
    '',
    `Stalls: stretches of ${STALL_MS} ms or more with no sample (a pause of the whole thread)`,
    '        ms   ended at  sampled before it',
  );
  lines.push(...s.stalls.slice(0, count).map((st) => `  ${ms(st.ms)}  ${(st.atMs / 1000).toFixed(2).padStart(7)} s  ${st.before}`));
  if (!s.stalls.length) lines.push('  none');
  return lines.join('\n') + '\n';
}
