// The built package as an app meets it in Node: ESM that imports, a main entry that reaches no
// node: module (so browser and Worker bundles stay clean), and verification with Node's WebCrypto.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as Sdk from '../src/index';
import type * as NodeEntry from '../src/node';

const SDK_DIR = path.resolve(import.meta.dirname, '..');
let out: string;
let sdk: typeof Sdk;

beforeAll(() => {
  out = mkdtempSync(path.join(tmpdir(), 'keypanel-sdk-'));
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', SDK_DIR, '--outDir', out], { stdio: 'pipe' });
}, 60_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Every module the entry reaches through relative imports, with the bare specifiers it names. */
function graph(entry: string): { files: string[]; external: string[] } {
  const files = new Set<string>();
  const external = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec));
      else external.add(spec);
    }
  };
  visit(entry);
  return { files: [...files], external: [...external] };
}

describe('the built @keypanel/licensing', () => {
  it('builds ESM and declarations for both entries, as package.json exports them', async () => {
    const pkg = JSON.parse(readFileSync(path.join(SDK_DIR, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      exports: Record<string, { types: string; import: string }>;
    };
    expect(pkg.dependencies ?? {}).toEqual({});
    for (const entry of Object.values(pkg.exports)) {
      expect(readFileSync(path.join(out, path.relative('dist', entry.types)), 'utf8')).toContain('export');
    }
    sdk = (await import(pathToFileURL(path.join(out, 'index.js')).href)) as typeof Sdk;
    expect(typeof sdk.createLicensing).toBe('function');
    const node = (await import(pathToFileURL(path.join(out, 'node.js')).href)) as typeof NodeEntry;
    expect(typeof node.deviceFingerprint).toBe('function');
  });

  it('has a main entry that imports nothing at all: no node: module, no dependency', () => {
    const main = graph(path.join(out, 'index.js'));
    expect(main.files.length).toBeGreaterThan(3);
    expect(main.external).toEqual([]);
    // The fingerprint helper is where node: modules live, and only there.
    expect(graph(path.join(out, 'node.js')).external.every((spec) => spec.startsWith('node:'))).toBe(true);
  });

  it('verifies tokens and keys with Node’s WebCrypto, and refuses other algorithms and keys', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const jwk = publicKey.export({ format: 'jwk' }) as JsonWebKey;
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ fp: 'node-device-1', product: 'APP' })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' })
      .setSubject('APP-KEY-1')
      .setIssuer('keypanel')
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(privateKey);
    for (const pinned of [pem, jwk, JSON.stringify(jwk)]) {
      const key = await sdk.importPublicKey(pinned);
      expect(await sdk.verifyOfflineToken(key, token, { key: 'app-key-1', fingerprint: 'node-device-1' })).toMatchObject({
        key: 'APP-KEY-1',
        keyTag: 'APP',
      });
    }
    const key = await sdk.importPublicKey(pem);
    await expect(sdk.verifyOfflineToken(key, token, { fingerprint: 'another' })).rejects.toMatchObject({ problem: 'fingerprint' });
    await expect(sdk.verifyOfflineToken(key, token, { now: (now + 60) * 1000 })).rejects.toMatchObject({ problem: 'expired' });
    const [, body, signature] = token.split('.');
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${body}.${signature}`;
    await expect(sdk.verifyOfflineToken(key, none)).rejects.toMatchObject({ problem: 'malformed' });
    const hs = await new SignJWT({ fp: 'x' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('APP-KEY-1')
      .setIssuer('keypanel')
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(new Uint8Array(32));
    await expect(sdk.verifyOfflineToken(key, hs)).rejects.toMatchObject({ problem: 'malformed' });
    // A private key is never accepted as the pinned key (it must not ship in an app).
    await expect(sdk.importPublicKey(privateKey.export({ format: 'jwk' }) as JsonWebKey)).rejects.toThrow(TypeError);
    await expect(sdk.importPublicKey('not a key')).rejects.toThrow(TypeError);
  });

  it('reads Retry-After in both of its forms', () => {
    expect(sdk.parseRetryAfter('7')).toBe(7);
    expect(sdk.parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(30);
    expect(sdk.parseRetryAfter('soon')).toBeUndefined();
    expect(sdk.parseRetryAfter(null)).toBeUndefined();
  });
});
