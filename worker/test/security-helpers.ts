// Helpers for the account security tests: an authenticator app, two-factor set up through the API,
// and the local mail outbox.
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import { generateHOTP } from '@oslojs/otp';
import { env } from 'cloudflare:test';
import { expect } from 'vitest';
import { readOutbox, type OutboxMail } from '../platform/mail';
import { api, TEST_PASSWORD } from './helpers';

export const STEP_MS = 30_000;
export const stepOf = (now = Date.now()) => Math.floor(now / STEP_MS);

/** What an authenticator app shows for the secret, `offset` steps from now. */
export function codeFor(secret: string, offset = 0, now = Date.now()): string {
  return generateHOTP(decodeBase32IgnorePadding(secret), BigInt(stepOf(now) + offset), 6);
}

/**
 * Sets up and enables two-factor for the signed-in user with the code of `at`'s step; returns the
 * secret (base32). A test that replays that code passes the same `at`: a code computed later may
 * belong to the next step.
 */
export async function enableTwoFactor(
  token: string,
  proof: Record<string, string> = { currentPassword: TEST_PASSWORD },
  at = Date.now(),
): Promise<string> {
  const setup = await api('POST', '/api/users/setup-2fa', { token, body: proof });
  expect(setup.status).toBe(200);
  const verify = await api('POST', '/api/users/verify-2fa', { token, body: { code: codeFor(setup.body.secret, 0, at) } });
  expect(verify.status).toBe(200);
  return setup.body.secret;
}

/** Waits for mail sent after a response (it goes by the mail queue, whose consumer takes a batch within a second). */
export async function waitForMail(to: string, count = 1, timeoutMs = 10_000): Promise<OutboxMail[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mails = await readOutbox(env.KV, to);
    if (mails.length >= count || Date.now() > deadline) return mails;
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const resetTokenFrom = (mail: OutboxMail) => mail.text.match(/\/reset-password#token=([A-Za-z0-9_-]+)/)?.[1] ?? null;
