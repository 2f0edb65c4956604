// `apiRateLimit` (settings, per IP per hour) for the calls anyone can make without a session:
// sign-in, registration, the two-factor step, password reset and starting Google sign-in.
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../../platform/context';
import { enforce, perIpPerHour } from '../../platform/throttle';
import { clientIp, clientNetwork } from '../../platform/request';
import { getSettings } from '../settings';

/** Addresses the per-IP limit leaves alone (comma-separated), e.g. a health probe or a test runner. */
export function exemptAddresses(list: string | undefined): Set<string> {
  return new Set(
    (list ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

export const limitPerIp = createMiddleware<AppEnv>(async (c, next) => {
  const ip = clientIp(c) ?? 'unknown';
  if (!exemptAddresses(c.env.THROTTLE_EXEMPT_IPS).has(ip)) {
    const { apiRateLimit } = await getSettings(c.env.KV);
    await enforce(c.var.db, `ip:${clientNetwork(c)}`, perIpPerHour(apiRateLimit), 'Too many requests from your network.');
  }
  await next();
});
