// Where the CLI keeps its session: ~/.config/keypanel/config.json ($XDG_CONFIG_HOME respected),
// readable by the user alone (0600). KEYPANEL_URL and KEYPANEL_TOKEN override the file for scripts.
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { UsageError } from './errors';

export const DEFAULT_URL = 'http://localhost:8787';

const storedUser = z.object({ username: z.string(), email: z.string(), role: z.string() });
const configSchema = z.object({
  url: z.string().optional(),
  token: z.string().optional(),
  user: storedUser.optional(),
  /** The licensing public key per server, fetched once for `license verify-token`. */
  publicKeys: z.record(z.string(), z.string()).optional(),
});
export type StoredConfig = z.infer<typeof configSchema>;

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  // The XDG spec: a relative XDG_CONFIG_HOME is invalid and ignored.
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.config');
  return path.join(base, 'keypanel');
}

export const configPath = (env: NodeJS.ProcessEnv = process.env) => path.join(configDir(env), 'config.json');

export function readConfig(file = configPath()): StoredConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  try {
    return configSchema.parse(JSON.parse(text));
  } catch {
    throw new UsageError(`${file} is not a valid KeyPanel config file. Delete it and run \`keypanel login\` again.`);
  }
}

/** Written to a temporary file (created 0600) and renamed, so the token is never readable by others. */
export function writeConfig(config: StoredConfig, file = configPath()) {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, file);
  } finally {
    rmSync(temp, { force: true });
  }
}

const urlSchema = z
  .string()
  .trim()
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), 'must be an http:// or https:// address')
  .transform((v) => v.replace(/\/+$/, ''));

/** An http(s) base URL without a trailing slash; `what` names its source in the error. */
export function parseBaseUrl(value: string, what: string): string {
  const parsed = urlSchema.safeParse(value);
  if (!parsed.success) throw new UsageError(`${what} ${parsed.error.issues[0].message} (got "${value}")`);
  return parsed.data;
}

export type Connection = { url: string; token: string | undefined; tokenSource: 'KEYPANEL_TOKEN' | 'config' | undefined };

export function resolveConnection(env: NodeJS.ProcessEnv = process.env, config: StoredConfig = readConfig(configPath(env))): Connection {
  const url = env.KEYPANEL_URL
    ? parseBaseUrl(env.KEYPANEL_URL, 'KEYPANEL_URL')
    : parseBaseUrl(config.url ?? DEFAULT_URL, 'The configured URL');
  if (env.KEYPANEL_TOKEN) return { url, token: env.KEYPANEL_TOKEN.trim(), tokenSource: 'KEYPANEL_TOKEN' };
  // The stored session belongs to the server it was made on: never send it to another one.
  const storedUrl = parseBaseUrl(config.url ?? DEFAULT_URL, 'The configured URL');
  const token = storedUrl === url ? config.token : undefined;
  return { url, token, tokenSource: token ? 'config' : undefined };
}
