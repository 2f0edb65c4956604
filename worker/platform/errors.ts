// The one error model of the API: every failure leaves as `{ message, code }` with an honest status.
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export const codeToStatus = {
  VALIDATION_ERROR: 400,
  INVALID_JSON: 400,
  UNAUTHORIZED: 401,
  INVALID_CREDENTIALS: 401,
  SESSION_EXPIRED: 401,
  INSUFFICIENT_CREDITS: 402,
  INSUFFICIENT_BALANCE: 402,
  PAYMENT_OWED: 402,
  FUNDS_HELD: 402,
  FORBIDDEN: 403,
  ACCOUNT_DISABLED: 403,
  REGISTRATION_DISABLED: 403,
  PURCHASES_DISABLED: 403,
  PAYMENTS_DISABLED: 403,
  REAUTH_REQUIRED: 403,
  EMAIL_UNVERIFIED: 403,
  // The owner turned auto-renewal off for the shop (settings.renewals.autoRenewEnabled).
  AUTO_RENEW_DISABLED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  RATE_CHANGED: 409,
  // A key that cannot be renewed: revoked, perpetual (it never expires), or a device's trial.
  KEY_NOT_RENEWABLE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  // A feature this deployment has not set up (no Google client, no Stripe key, no mail, no APP_URL):
  // not there, rather than a server failing, so monitoring does not page anyone. The message says what to set.
  NOT_CONFIGURED: 404,
  PAYMENT_PROVIDER_ERROR: 502,
  MAINTENANCE: 503,
  // D1 could not be reached for a moment (transientDatabaseFailure): nothing wrong with the request.
  UNAVAILABLE: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof codeToStatus;

export type ErrorBody = { message: string; code: ErrorCode; details?: Record<string, unknown> };

export class AppError extends HTTPException {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: { details?: Record<string, unknown>; headers?: Record<string, string> } = {}) {
    super(codeToStatus[code], { message });
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }

  get body(): ErrorBody {
    return { message: this.message, code: this.code, ...(this.details ? { details: this.details } : {}) };
  }
}

const statusToCode: Partial<Record<number, ErrorCode>> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RATE_LIMITED',
};

export function errorResponse(thrown: Error, c: Context): Response {
  // An AppError thrown from under a library (drizzle wraps what its D1 client throws) is still ours.
  const err = appErrorIn(thrown) ?? thrown;
  if (err instanceof AppError) {
    return c.json(err.body, err.status, err.headers);
  }
  if (err instanceof HTTPException) {
    // Hono's own exceptions: the JSON validator's "Malformed JSON" among them.
    const malformed = /malformed json/i.test(err.message);
    const code: ErrorCode = malformed ? 'INVALID_JSON' : (statusToCode[err.status] ?? 'VALIDATION_ERROR');
    const message = malformed ? 'Request body is not valid JSON' : err.message || 'Request failed';
    return c.json({ message, code } satisfies ErrorBody, err.status);
  }
  if (transientDatabaseFailure(err)) {
    console.warn('D1 unavailable', err);
    const body: ErrorBody = { message: UNAVAILABLE_MESSAGE, code: 'UNAVAILABLE', details: { retryAfter: UNAVAILABLE_RETRY_S } };
    return c.json(body, 503, { 'Retry-After': String(UNAVAILABLE_RETRY_S) });
  }
  console.error('Unhandled error', err);
  return c.json({ message: 'Something went wrong on our side. Please try again.', code: 'INTERNAL_ERROR' } satisfies ErrorBody, 500);
}

export const UNAVAILABLE_MESSAGE = 'KeyPanel could not reach its database just now. Please try again in a moment.';
const UNAVAILABLE_RETRY_S = 1;

/**
 * D1's errors that say the database could not be reached for a moment, which Cloudflare's guidance
 * lists as worth retrying (a lost connection, a reset Durable Object behind the database, an
 * overload): the request was fine, so the answer is 503 with Retry-After, not a 500. A write that
 * failed so may or may not have committed; the idempotent operations' Idempotency-Key makes trying
 * again safe.
 */
const TRANSIENT_D1 =
  /Network connection lost|storage caused object to be reset|reset because its code was updated|D1 DB is overloaded|due to transient issue/i;

const transientDatabaseFailure = (err: unknown): boolean =>
  inCauses(err, (e) => (e instanceof Error && TRANSIENT_D1.test(e.message) ? true : null)) ?? false;

const appErrorIn = (err: unknown): AppError | null => inCauses(err, (e) => (e instanceof AppError ? e : null));

/** The first of `err` and its causes (five deep: libraries such as drizzle wrap what they throw) that `pick` gives a value for. */
function inCauses<T>(err: unknown, pick: (e: unknown) => T | null): T | null {
  for (let current = err, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const found = pick(current);
    if (found !== null) return found;
  }
  return null;
}

export const notFound = (what = 'Resource') => new AppError('NOT_FOUND', `${what} not found`);
export const forbidden = (message = 'You do not have permission to do this') => new AppError('FORBIDDEN', message);
export const MAINTENANCE_MESSAGE = 'KeyPanel is under maintenance. Please try again later.';
/** Maintenance mode ("blocks all user access"): anyone but an owner is told so; licensed apps keep being served. */
export const underMaintenance = () => new AppError('MAINTENANCE', MAINTENANCE_MESSAGE);

export const registrationClosed = () =>
  new AppError('REGISTRATION_DISABLED', 'Registration is currently closed. Please contact the administrator.');
