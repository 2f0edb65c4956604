// The TypeScript SDK against the conformance vectors (sdk/conformance/), as the Python and Go SDKs
// run them: every case must give the outcome its vector says. A verifier that skips the signature
// must fail them, or the vectors prove nothing.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LICENSE_CODES } from '../../worker/platform/vocabulary';
import { loadVectors, runCase } from './conformance/run';

const files = loadVectors();
const all = files.flatMap(({ file, vectors }) => vectors.cases.map((c) => ({ file, pem: vectors.publicKey.pem, c })));

describe('the conformance vectors', () => {
  it('cover every licensing code, each with tampered copies', () => {
    const base = new Set(all.filter((v) => v.c.tamper === null).map((v) => v.c.code));
    expect(LICENSE_CODES.filter((code) => !base.has(code))).toEqual([]);
    for (const tamper of [
      'changed-byte',
      'changed-signature',
      'no-signature',
      'wrong-key',
      'other-request',
      'forged-valid',
      'changed-header',
      'expired',
      'clock-behind',
    ])
      expect(
        all.some((v) => v.c.tamper === tamper),
        tamper,
      ).toBe(true);
  });

  for (const { file, vectors } of files) {
    describe(file, () => {
      it.each(vectors.cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
        expect(await runCase(c, vectors.publicKey.pem)).toBeNull();
      });
    });
  }
});

describe('a verifier that skips the signature', () => {
  afterEach(() => vi.restoreAllMocks());

  it('fails every vector whose signature was tampered with', async () => {
    // Every Ed25519 check says yes: what a hand-rolled offline check that forgets the signature does.
    vi.spyOn(crypto.subtle, 'verify').mockResolvedValue(true);
    const signed = ['changed-byte', 'changed-signature', 'wrong-key', 'forged-valid'];
    const tampered = all.filter((v) => v.c.tamper !== null && signed.includes(v.c.tamper));
    const passedAnyway: string[] = [];
    for (const v of tampered) if ((await runCase(v.c, v.pem)) === null) passedAnyway.push(`${v.file}: ${v.c.name}`);
    expect(tampered.length).toBeGreaterThan(100);
    expect(passedAnyway).toEqual([]);
  });
});
