// Node (and Electron's main process): a stable device fingerprint from the operating system's
// machine id, hashed with an app-chosen salt so the raw id never leaves the machine and two apps
// see different values. A separate entry point, so browser bundles never meet node: modules.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { promisify } from 'node:util';
import type { DeviceInfo } from './client.js';

const run = promisify(execFile);

/** The OS's own machine id: stable across reboots and app reinstalls; null if none can be read. */
export async function machineId(platform: NodeJS.Platform = process.platform): Promise<string | null> {
  try {
    if (platform === 'linux' || platform === 'freebsd' || platform === 'openbsd') {
      for (const file of ['/etc/machine-id', '/var/lib/dbus/machine-id', '/etc/hostid']) {
        const id = (await readFile(file, 'utf8').catch(() => '')).trim();
        if (id) return id;
      }
      return null;
    }
    if (platform === 'darwin') {
      const { stdout } = await run('ioreg', ['-rd1', '-c', 'IOPlatformExpertDevice']);
      return /"IOPlatformUUID"\s*=\s*"([^"]+)"/.exec(stdout)?.[1] ?? null;
    }
    if (platform === 'win32') {
      const { stdout } = await run('reg', ['query', 'HKLM\\SOFTWARE\\Microsoft\\Cryptography', '/v', 'MachineGuid']);
      return /MachineGuid\s+REG_SZ\s+(\S+)/.exec(stdout)?.[1] ?? null;
    }
  } catch {
    /* no id on this system: the caller falls back */
  }
  return null;
}

/**
 * A fingerprint for `activate`/`validate`: 64 hex characters, the same on every run on this
 * machine. Without a machine id (some containers), the host name, CPU and network cards stand in.
 */
export async function deviceFingerprint(options: { salt?: string } = {}): Promise<string> {
  const id = (await machineId()) ?? fallbackId();
  return createHash('sha256')
    .update(`keypanel-device:${options.salt ?? ''}:${id}`)
    .digest('hex');
}

function fallbackId(): string {
  const macs = Object.values(os.networkInterfaces())
    .flat()
    .filter((n) => n && !n.internal && n.mac !== '00:00:00:00:00:00')
    .map((n) => n!.mac)
    .sort();
  return [os.hostname(), os.arch(), os.cpus()[0]?.model ?? '', ...new Set(macs)].join('|');
}

/** What the owner sees for this device in the admin area (activate's `deviceInfo`). */
export function deviceInfo(): DeviceInfo {
  return { model: `${os.type()} ${os.release()}`.slice(0, 200), device: os.hostname().slice(0, 200), cpuAbi: os.arch() };
}
