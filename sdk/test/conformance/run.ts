// The TypeScript SDK's runner for the conformance vectors: each case on a fresh device (its own
// store), the SDK's fetch answering with the vector's HTTP answer, its clock the step's `now`. A
// case passes when every step's outcome is the one the vector expects.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createLicensing, memoryStore, normalizeKey, TokenError, type LicenseResult, type OfflineToken } from '../../src/index.js';
import { VECTOR_FILES, type Case, type CallStep, type Outcome, type TokenClaims, type TokenOutcome, type VectorFile } from './format.js';

export const CONFORMANCE_DIR = path.join(import.meta.dirname, '..', '..', 'conformance');

export function loadVectors(): Array<{ file: string; vectors: VectorFile }> {
  return VECTOR_FILES.map((file) => ({ file, vectors: JSON.parse(readFileSync(path.join(CONFORMANCE_DIR, file), 'utf8')) as VectorFile }));
}

const ms = (date: Date | null | undefined) => (date ? date.getTime() : null);

const claims = (token: OfflineToken): TokenClaims => ({
  key: token.key,
  fingerprint: token.fingerprint,
  keyTag: token.keyTag,
  issuedAt: token.issuedAt.getTime(),
  expiresAt: token.expiresAt.getTime(),
  entitlements: token.entitlements,
});

export function outcome(result: LicenseResult): Outcome {
  return {
    valid: result.valid,
    code: result.code,
    source: result.source,
    licenseKey: result.license?.key ?? null,
    usageRemaining: result.license?.usage?.remaining ?? null,
    leaseExpiresAt: ms(result.leaseExpiresAt),
    slotFreesAt: ms(result.slotFreesAt),
    borrowedUntil: ms(result.borrowedUntil),
    nextSwapAt: ms(result.nextSwapAt),
    deviceIds: result.devices?.map((d) => d.id) ?? [],
    offlineToken: result.offlineToken ? claims(result.offlineToken) : null,
  };
}

const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Runs one case; the first mismatch, or null when every step gave what the vector expects. */
export async function runCase(testCase: Case, publicKey: string): Promise<string | null> {
  const store = memoryStore();
  let step: CallStep | null = null;
  let now = 0;
  // What the SDK sent wrong, if anything (set by the fetch below).
  const sent: { problem: string | null } = { problem: null };
  const sentProblem = (): string | null => sent.problem;
  const licensing = createLicensing({
    url: 'https://keypanel.invalid',
    publicKey,
    store,
    now: () => now,
    retry: { retries: 0 },
    sleep: async () => {},
    fetch: (url, init) => {
      const expected = step!.sent;
      const body = JSON.parse(init.body as string) as Record<string, unknown>;
      const headers = init.headers as Record<string, string>;
      if (new URL(url).pathname !== expected.path) sent.problem = `sent to ${url}, not ${expected.path}`;
      else if (!same(sortKeys(body), sortKeys(expected.body)))
        sent.problem = `sent ${JSON.stringify(body)}, not ${JSON.stringify(expected.body)}`;
      else if (expected.idempotencyKey !== undefined && headers['Idempotency-Key'] !== expected.idempotencyKey)
        sent.problem = `sent Idempotency-Key ${headers['Idempotency-Key']}, not ${expected.idempotencyKey}`;
      const answer = step!.answer;
      if (!answer) return Promise.reject(new TypeError('fetch failed (the vector has no answer: the network is down)'));
      return Promise.resolve(
        new Response(fromBase64(answer.body), {
          status: answer.status,
          headers: answer.signature === null ? {} : { 'X-Signature': answer.signature },
        }),
      );
    },
  });
  for (const [i, s] of testCase.steps.entries()) {
    const where = `step ${i + 1} (${s.do})`;
    let got: Outcome | TokenOutcome | null = null;
    if (s.do === 'call') {
      step = s;
      now = s.now;
      sent.problem = null;
      const r = s.request;
      const base = { key: r.key, fingerprint: r.fingerprint, nonce: r.nonce };
      const calls: Record<CallStep['action'], () => Promise<LicenseResult>> = {
        activate: () => licensing.activate(base),
        validate: () => licensing.validate(r.releaseDate === undefined ? base : { ...base, releaseDate: r.releaseDate }),
        deactivate: () => licensing.deactivate(base),
        heartbeat: () => licensing.heartbeat(base),
        borrow: () => licensing.borrow({ ...base, hours: r.hours! }),
        'replace-device': () => licensing.replaceDevice({ ...base, replaceDeviceId: r.replaceDeviceId! }),
        trial: () => licensing.startTrial({ keyTag: r.keyTag!, fingerprint: r.fingerprint, nonce: r.nonce }),
        consume: () => licensing.consume({ ...base, amount: r.amount, idempotencyKey: r.idempotencyKey }),
      };
      got = outcome(await calls[s.action]());
      const problem = sentProblem();
      if (problem) return `${where}: ${problem}`;
    } else if (s.do === 'checkOffline') {
      now = s.now;
      got = outcome(await licensing.checkOffline({ key: s.key, fingerprint: s.fingerprint }));
    } else if (s.do === 'verifyToken') {
      now = s.now;
      try {
        got = { ok: true, token: claims(await licensing.verifyToken(s.token, { key: s.key, fingerprint: s.fingerprint })) };
      } catch (err) {
        if (!(err instanceof TokenError)) throw err;
        got = { ok: false, problem: err.problem };
      }
    } else if (s.do === 'plantOfflineRequest') {
      // The store layout every SDK shares (sdk/conformance/README.md).
      const { nonce, deviceKey, privateKey } = s;
      await store.set(`keypanel:offline-request:${normalizeKey(s.key)}|${s.fingerprint}`, JSON.stringify({ nonce, deviceKey, privateKey }));
      continue;
    } else {
      now = s.now;
      got = outcome(await licensing.applyOfflineResponse(s.response, { fingerprint: s.fingerprint }));
    }
    if (!same(sortKeys(got), sortKeys(s.expect))) return `${where}: expected ${JSON.stringify(s.expect)}, got ${JSON.stringify(got)}`;
  }
  return null;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, sortKeys(v)]),
    );
  return value;
}
