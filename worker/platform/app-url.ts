// The app's public address, for links and redirects that leave the Worker (reset mail, Google, Stripe).
import type { Context } from 'hono';
import type { AppEnv } from './context';
import { AppError } from './errors';

/**
 * The public origin, from APP_URL only: never the request's Host header, which a client can forge to
 * have a reset link or an OAuth redirect point at its own server. Unset, nothing that needs it is sent.
 */
export function appUrl<E extends AppEnv>(c: Context<E>, purpose: string): string {
  const configured = c.env.APP_URL?.trim();
  if (!configured) {
    console.error(
      `APP_URL is not set: refusing to build ${purpose}. Set APP_URL to the app's public address (e.g. https://keys.example.com).`,
    );
    throw new AppError(
      'NOT_CONFIGURED',
      'This server has no public address configured (APP_URL), so it cannot send this link. Please tell the administrator.',
    );
  }
  return configured.replace(/\/$/, '');
}
