// Browser tests run against the product as `npm start` serves it: built web app, migrated
// local D1, an owner account, `wrangler dev`, on a free port with a throwaway state folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { applyMigrations, buildWeb, ensureDevVars, ensureOwner, freePort, startServer, stopServer } from '../scripts/local';

export const OWNER = { email: 'owner@keypanel.test', password: 'Harbor-Lantern-42' };

declare module 'vitest' {
  export interface ProvidedContext {
    baseURL: string;
    owner: { email: string; password: string };
  }
}

export default async function setup(project: TestProject) {
  ensureDevVars();
  const stateDir = mkdtempSync(path.join(tmpdir(), 'keypanel-e2e-'));
  const assetsDir = path.join(stateDir, 'client');
  buildWeb(assetsDir);
  applyMigrations(stateDir);
  await ensureOwner(stateDir, OWNER);
  const port = await freePort();
  // Every browser test signs in from 127.0.0.1; the per-IP sign-in limit (tested in the Worker
  // suite) would otherwise count the whole run against one address.
  const server = await startServer({ port, stateDir, assetsDir, vars: { THROTTLE_EXEMPT_IPS: '127.0.0.1,::1,unknown' } });
  project.provide('baseURL', `http://127.0.0.1:${port}`);
  project.provide('owner', OWNER);
  return () => {
    stopServer(server);
    rmSync(stateDir, { recursive: true, force: true });
  };
}
