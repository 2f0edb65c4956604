// Running the built CLI as a person or a script would, and calling the API directly to set up
// what a test needs.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { checkAnswer } from '../../scripts/api-contract';
import type { Schemas, TestAnswerBody } from '../../worker/platform/api-client';
import type { StoredConfig } from '../lib/config';

export type { Schemas };

/** What a `--format json` command printed, read as the shape the test expects (the API's own, mostly). */
export const json = <T>(stdout: string) => JSON.parse(stdout) as T;

/** The config file `keypanel login` writes. */
export const readConfig = (file: string) => json<StoredConfig>(readFileSync(file, 'utf8'));

export const baseURL = () => inject('cliBaseURL');
export const ownerCredentials = () => inject('cliOwner');

export type CliResult = { code: number | null; stdout: string; stderr: string };

/** A fresh, empty config home (XDG_CONFIG_HOME), so each test starts signed out. */
export const configHome = () => mkdtempSync(path.join(tmpdir(), 'keypanel-cli-home-'));

/**
 * Runs `keypanel args...`: stdin is `input` (or empty), stdout and stderr are pipes (not a
 * terminal, as in a script). The environment is minimal, so nothing from the runner leaks in.
 */
export function keypanel(
  args: string[],
  options: { env?: Record<string, string | undefined>; input?: string; home?: string } = {},
): Promise<CliResult> {
  const home = options.home ?? configHome();
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: home, KEYPANEL_URL: baseURL() };
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [inject('cliPath'), ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** Calls the API directly; the body is typed by the document for this method and path. */
export async function apiCall<M extends string, P extends string>(
  method: M,
  pathname: P,
  options: { body?: unknown; token?: string } = {},
): Promise<{ status: number; body: TestAnswerBody<M, P> }> {
  const res = await fetch(new URL(pathname, baseURL()), {
    method,
    headers: { 'content-type': 'application/json', ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  checkAnswer({ method, path: pathname, status: res.status, contentType: res.headers.get('content-type'), text });
  return { status: res.status, body: (text ? JSON.parse(text) : null) as TestAnswerBody<M, P> };
}

export async function signIn(credentials: { email: string; password: string }): Promise<string> {
  const res = await apiCall('POST', '/api/auth/login', { body: credentials });
  if (res.status !== 200 || !res.body.token) throw new Error(`login failed: ${JSON.stringify(res.body)}`);
  return res.body.token;
}

let ownerToken: Promise<string> | null = null;
export const ownerSession = () => (ownerToken ??= signIn(ownerCredentials()));

let counter = 0;
export const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`;

/** A config home signed in as the given session (the file `keypanel login` writes). */
export function signedInHome(token: string): string {
  const home = configHome();
  const dir = path.join(home, 'keypanel');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ url: baseURL(), token }), { mode: 0o600 });
  return home;
}

export const PASSWORD = 'Steady-Secret-9';

/** A user of the given role, made by the owner through the API. */
export async function createUser(role: 'user' | 'reseller' | 'owner', extra: { credits?: number } = {}) {
  const username = unique(role);
  const email = `${username}@cli.test`;
  const res = await apiCall('POST', '/api/admin/users', {
    token: await ownerSession(),
    // The owner vouches for the address: card top-ups need a verified one. Making a reseller or an
    // owner needs the owner's proof beyond the session (step-up).
    body: {
      username,
      email,
      password: PASSWORD,
      role,
      emailVerified: true,
      ...(role === 'user' ? {} : { currentPassword: ownerCredentials().password }),
      ...extra,
    },
  });
  if (res.status !== 201) throw new Error(`create user failed: ${JSON.stringify(res.body)}`);
  return { id: res.body.user._id, username, email, password: PASSWORD };
}

/** An active product with a unique key tag, made by the owner through the API. */
export async function createProduct(fields: Record<string, unknown> = {}) {
  const keyTag = unique('T')
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '')
    .slice(-10);
  const res = await apiCall('POST', '/api/products', {
    token: await ownerSession(),
    body: {
      name: `Product ${keyTag}`,
      description: 'For the CLI tests',
      keyTag,
      baseCreditCost: 5,
      creditsPerDay: 1,
      minDays: 1,
      maxDays: 365,
      ...fields,
    },
  });
  if (res.status !== 201) throw new Error(`create product failed: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** RFC 4180, written here independently of the CLI's writer: quoted fields, doubled quotes, CRLF. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else if (ch === '\n') throw new Error(`bare LF at ${i}: CSV lines must end with CRLF`);
    else field += ch;
  }
  if (field !== '' || row.length) throw new Error('CSV does not end with CRLF');
  return rows;
}

/** Rows as objects keyed by the header row. */
export function csvRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  for (const r of rows) if (r.length !== header.length) throw new Error(`row has ${r.length} fields, header ${header.length}`);
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
}
