// The Node device-fingerprint helper: stable on one machine, salted per app, within what the
// licensing API accepts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { activateLicenseSchema } from '../../worker/modules/licensing/schemas';
import { deviceFingerprint, deviceInfo, machineId } from '../src/node';

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
