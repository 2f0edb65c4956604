// One declaration per operation (platform/openapi.ts, RouteDoc): who may call it, with which credentials,
// whether it needs proof, whether it is served in maintenance and whether it only reads. The
// middleware made from it is the operation's first handler and does all of it, in this order: open
// the request's D1 session (a replica may serve a read), refuse what maintenance mode refuses,
// identify the caller (modules/accounts/identify.ts), check proof, and, after the handler, confirm the caller
// if the handler asked D1 nothing. The same declaration is the operation's part of the OpenAPI
// document, so the document, the guard and the generated role-matrix tests cannot disagree.
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { uniqueSymbol } from 'hono-openapi';
import type { AppEnv, SignedInEnv } from '../../platform/context';
import { requestDb } from '../../platform/db/client';
import { openRequestD1 } from '../../platform/db/session';
import { AppError, underMaintenance } from '../../platform/errors';
import { inBackground } from '../../platform/request';
import { declaration, documented, policyOf, readsFor, type RouteDefaults, type RouteDoc } from '../../platform/openapi';
import { currentUser, stepUp } from './signed-in';
import type { StepUpProof } from './schemas/security';
import { identify } from './identify';
import { getSettings } from '../settings';

/** The operation's middleware: its declaration enforced, and its description for the document. */
export function operation(doc: RouteDoc) {
  const policy = policyOf(doc);
  const enforce = createMiddleware<AppEnv>(async (c, next) => {
    const reads = readsFor(doc.reads, c.req.method);
    // Events a write commits go on the webhook queue after the answer (webhooks/outbox.ts).
    const afterCommit = {
      later: (work: Promise<unknown> | undefined) => inBackground(c, work),
      webhookQueue: c.env.WEBHOOK_QUEUE,
      mailQueue: c.env.MAIL_QUEUE,
    };
    const d1 = openRequestD1(c.env.DB, { write: !reads, primary: doc.primary === true, bookmark: c.var.bookmark, afterCommit });
    c.set('d1', d1);
    c.set('db', requestDb(d1));
    const maintenance = !policy.servedInMaintenance && (await getSettings(c.env.KV)).maintenanceMode;
    if (doc.access === 'public') {
      if (maintenance) throw underMaintenance();
      return next();
    }
    const needs = { minimum: doc.access, tokens: policy.tokens, reads, proof: doc.proof === 'always' };
    if (maintenance) {
      // Only owners are served: anyone else, signed in or not, is told why.
      const caller = await identify(c, needs).catch((err: unknown) => {
        if (err instanceof AppError && err.status === 401) return null;
        throw err;
      });
      if (caller?.role !== 'owner') throw underMaintenance();
    } else {
      await identify(c, needs);
    }
    let proven = false;
    if (doc.proof === 'always') {
      // Checked by the JSON body's validator once the body is valid (platform/validate.ts): a bad body is
      // a 400 before any password is tried, and no handler runs without the proof.
      c.set('proof', async (body) => {
        await requireProof(c as unknown as Context<SignedInEnv>, body);
        proven = true;
      });
    }
    await next();
    if (doc.proof === 'always' && !proven && c.res.ok) throw new Error(`${doc.operationId} declares proof but no JSON body carried it`);
    await d1.confirmCaller();
  });
  return Object.assign(enforce, { [uniqueSymbol]: (documented(doc) as unknown as Record<symbol, unknown>)[uniqueSymbol] });
}

/** A route file's declarations, bound to its tag and usual access (see `declaration`). */
export const routeOperations =
  (defaults: RouteDefaults) =>
  (...args: Parameters<ReturnType<typeof declaration>>) =>
    operation(declaration(defaults)(...args));

/**
 * Proof for an operation that always needs it, from the validated JSON body's `currentPassword` or
 * `code` (the operation's own schema takes them): 403 REAUTH_REQUIRED before the handler runs.
 */
async function requireProof(c: Context<SignedInEnv>, body: unknown) {
  const { currentPassword, code } = (body ?? {}) as StepUpProof;
  await stepUp(c, await currentUser(c), { currentPassword, code });
}
