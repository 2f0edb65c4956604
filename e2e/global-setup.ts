// Browser tests run against the product as `npm start` serves it: built web app, migrated
// local D1, an owner account, `wrangler dev`, on a free port with a throwaway state folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { applyMigrations, buildWeb, ensureDevVars, ensureOwner, freePort, LOCAL_CALLERS, startServer, stopServer } from '../scripts/local';
import { standInForWorker } from '../scripts/stripe-stand-in';
import { startMailStandIn } from '../scripts/mail-stand-in';

export const OWNER = { email: 'owner@keypanel.test', password: 'Harbor-Lantern-42' };

declare module 'vitest' {
  export interface ProvidedContext {
    stripeStandIn: { url: string; webhookSecret: string };
    baseURL: string;
    /** The server's output, a line per request (e2e/evidence.ts reads it when a test fails). */
    serverLog: string;
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
  // Card top-ups go to the Stripe stand-in, whose checkout page pays and delivers the signed webhook.
  const { standIn, secrets } = await standInForWorker(port);
  // Mail goes to a mail API stand-in, as a deployment's goes to its provider (the local mailbox of
  // `npm start` is tested in cli/test/mail.test.ts).
  const mailApi = await startMailStandIn();
  // Every browser test signs in from 127.0.0.1; the per-IP sign-in limit (tested in the Worker
  // suite) would otherwise count the whole run against one address. The app's public address is the
  // one the browser uses: Stripe Checkout returns there, where the session's token is stored.
  const serverLog = path.join(stateDir, 'server.log');
  const server = await startServer({
    port,
    stateDir,
    assetsDir,
    logFile: serverLog,
    vars: { THROTTLE_EXEMPT_IPS: LOCAL_CALLERS, APP_URL: `http://127.0.0.1:${port}`, MAIL_API_URL: mailApi.url },
    secrets,
  });
  project.provide('baseURL', `http://127.0.0.1:${port}`);
  project.provide('serverLog', serverLog);
  project.provide('owner', OWNER);
  project.provide('stripeStandIn', { url: standIn.url, webhookSecret: secrets.STRIPE_WEBHOOK_SECRET });
  return () => {
    stopServer(server);
    void standIn.close();
    void mailApi.close();
    rmSync(stateDir, { recursive: true, force: true });
  };
}
