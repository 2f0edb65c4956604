// The CLI tests run the real, freshly built CLI as a child process against a real local Worker,
// started the way `npm start` does it (scripts/local.ts) on a free port with a throwaway state
// folder. No web build: the CLI only needs the API.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildCli } from '../../scripts/build-cli';
import {
  applyMigrations,
  ensureDevVars,
  ensureOwner,
  freePort,
  LOCAL_CALLERS,
  startServer,
  stopServer,
  stubAssets,
} from '../../scripts/local';
import { standInForWorker } from '../../scripts/stripe-stand-in';

export const OWNER = { email: 'owner@cli.test', password: 'Harbor-Lantern-42' };

declare module 'vitest' {
  export interface ProvidedContext {
    stripeStandIn: { url: string; webhookSecret: string };
    cliBaseURL: string;
    cliOwner: { email: string; password: string };
    cliPath: string;
  }
}

export default async function setup(project: TestProject) {
  ensureDevVars();
  const stateDir = mkdtempSync(path.join(tmpdir(), 'keypanel-cli-'));
  const assetsDir = stubAssets(stateDir);
  const cliPath = path.join(stateDir, 'keypanel.js');
  await buildCli(cliPath);
  applyMigrations(stateDir);
  await ensureOwner(stateDir, OWNER);
  const port = await freePort();
  // Card top-ups go to the Stripe stand-in, whose checkout page pays and delivers the signed webhook.
  const { standIn, secrets } = await standInForWorker(port);
  // Every test signs in from 127.0.0.1; the per-IP sign-in limit is tested in the Worker suite.
  const server = await startServer({ port, stateDir, assetsDir, vars: { THROTTLE_EXEMPT_IPS: LOCAL_CALLERS }, secrets });
  project.provide('cliBaseURL', `http://127.0.0.1:${port}`);
  project.provide('cliOwner', OWNER);
  project.provide('cliPath', cliPath);
  project.provide('stripeStandIn', { url: standIn.url, webhookSecret: secrets.STRIPE_WEBHOOK_SECRET });
  return () => {
    stopServer(server);
    void standIn.close();
    rmSync(stateDir, { recursive: true, force: true });
  };
}
