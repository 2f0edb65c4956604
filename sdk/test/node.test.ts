// The Node device-fingerprint helper: stable on one machine, salted per app, within what the
// licensing API accepts.
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { activateLicenseSchema } from '../../worker/modules/licensing/schemas';
import { deviceFingerprint, deviceInfo, fileStore, machineId } from '../src/node';

describe('deviceFingerprint', () => {
  it('is the same on every call, differs per salt, and hides the machine id', async () => {
    const first = await deviceFingerprint({ salt: 'app-one' });
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(await deviceFingerprint({ salt: 'app-one' })).toBe(first);
    expect(await deviceFingerprint({ salt: 'app-two' })).not.toBe(first);
    const id = await machineId();
    if (id !== null) expect(first).not.toContain(id);
  });

  it('reads the machine id Linux keeps', async () => {
    let expected: string | null = null;
    for (const file of ['/etc/machine-id', '/var/lib/dbus/machine-id']) {
      try {
        expected ??= readFileSync(file, 'utf8').trim() || null;
      } catch {
        /* not on this system */
      }
    }
    expect(await machineId('linux')).toBe(expected);
  });

  it('gives a fingerprint and device info the licensing API accepts', async () => {
    const parsed = activateLicenseSchema.safeParse({
      key: 'APP-KEY',
      deviceFingerprint: await deviceFingerprint(),
      deviceInfo: deviceInfo(),
    });
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  });
});

describe('fileStore', () => {
  it('keeps what is set across a restart, in a file only its user reads', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'keypanel-store-')), 'license.json');
    const store = fileStore(file);
    expect(await store.get('a')).toBeUndefined();
    await Promise.all([store.set('a', 'one'), store.set('b', 'two')]);
    await store.delete('b');
    const reopened = fileStore(file);
    expect(await reopened.get('a')).toBe('one');
    expect(await reopened.get('b')).toBeUndefined();
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
