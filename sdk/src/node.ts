// Node (and Electron's main process): a stable device fingerprint from the operating system's
// machine id, hashed with an app-chosen salt so the raw id never leaves the machine and two apps
// see different values. A separate entry point, so browser bundles never meet node: modules.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { promisify } from 'node:util';
import type { DeviceInfo, Licensing } from './client.js';
import type { TokenStore } from './store.js';

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

/**
 * A store in one JSON file (created with mode 0600, replaced whole on each change), so the offline
 * token, the trusted time and an air-gapped request still unanswered survive the app's restarts.
 */
export function fileStore(file: string): TokenStore {
  let entries: Promise<Record<string, string>> | null = null;
  let writing: Promise<void> = Promise.resolve();
  const load = () =>
    (entries ??= readFile(file, 'utf8')
      .then((text) => JSON.parse(text) as Record<string, string>)
      .catch((): Record<string, string> => ({})));
  const save = (all: Record<string, string>) => {
    writing = writing.then(async () => {
      await writeFile(`${file}.tmp`, JSON.stringify(all), { mode: 0o600 });
      await rename(`${file}.tmp`, file);
    });
    return writing;
  };
  return {
    get: async (id) => (await load())[id],
    set: async (id, value) => {
      const all = await load();
      all[id] = value;
      await save(all);
    },
    delete: async (id) => {
      const all = await load();
      delete all[id];
      await save(all);
    },
  };
}

/** Writes this device's air-gapped activation request to `file` (createOfflineRequest), for its holder to carry. */
export async function writeOfflineRequest(
  licensing: Licensing,
  file: string,
  req: { key: string; fingerprint: string; deviceInfo?: DeviceInfo },
) {
  const request = await licensing.createOfflineRequest(req);
  await writeFile(file, `${JSON.stringify(request, null, 2)}\n`);
  return request;
}

/** Reads the response file its holder brought back and applies it (applyOfflineResponse). */
export async function applyOfflineResponseFile(licensing: Licensing, file: string, req: { fingerprint: string }) {
  return licensing.applyOfflineResponse(await readFile(file, 'utf8'), req);
}

/** Writes the deactivation proof to `file` (createDeactivationProof: the device's offline token is erased). */
export async function writeDeactivationProof(licensing: Licensing, file: string, req: { key: string; fingerprint: string }) {
  const proof = await licensing.createDeactivationProof(req);
  await writeFile(file, `${JSON.stringify(proof, null, 2)}\n`);
  return proof;
}
