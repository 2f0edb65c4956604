// How a route describes itself in the OpenAPI document (GET /api/openapi.json): `documented({...})`
// is a hono-openapi describeRoute with the API's conventions filled in: the security a caller needs,
// the error statuses that come with it (each the one `{message, code, details?}` envelope), the
// D1 bookmark header every /api call takes and gives, Retry-After on 429, X-Signature on licensing.
import { describeRoute, resolver, type GenerateSpecOptions, type ResponsesWithResolver } from 'hono-openapi';
import { z, type ZodType } from 'zod';
import { codeToStatus, type ErrorCode } from './errors';

export const errorBodySchema = z
  .object({
    message: z.string().meta({ description: 'A sentence a person can read.' }),
    code: z.enum(Object.keys(codeToStatus) as [ErrorCode, ...ErrorCode[]]),
    details: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'More about the refusal, e.g. `field` for a validation error, `methods` for REAUTH_REQUIRED.' }),
  })
  .meta({ id: 'Error' });

export const successMessageSchema = z.object({ success: z.literal(true), message: z.string() }).meta({ id: 'SuccessMessage' });

export const TAGS = [
  { name: 'Auth', description: 'Registering, signing in, password reset, signing out.' },
  { name: 'Google sign-in', description: 'Signing in with Google (browser navigations).' },
  { name: 'Account', description: "The signed-in user's profile, keys, devices and figures." },
  { name: 'Account security', description: 'Password, two-factor, sessions, Google, the security log. Session only.' },
  { name: 'API tokens', description: 'Tokens for scripts and the CLI. Managed from a session only.' },
  { name: 'Settings', description: "The app's settings." },
  { name: 'Products', description: 'The catalogue.' },
  { name: 'Keys', description: 'Buying, revoking and generating license keys.' },
  { name: 'Credits', description: 'Exchanging USD balance for credits.' },
  { name: 'Payments', description: 'Card top-ups through Stripe Checkout.' },
  { name: 'Admin', description: 'Users, keys, payments, figures and the audit log, for owners and resellers.' },
  { name: 'Licensing', description: 'The API licensed software calls. Public; every answer is signed (X-Signature).' },
  { name: 'Webhooks', description: 'Outbound webhook endpoints and their deliveries.' },
  { name: 'Meta', description: 'Health and this document.' },
] as const;
export type Tag = (typeof TAGS)[number]['name'];

export const BOOKMARK_HEADER_DOC = {
  description:
    'D1 session bookmark: send the last one you received to read at least what you (or whoever sent it to you) last wrote; every /api answer carries the newest.',
  schema: { type: 'string' as const },
};

export const SECURITY_SCHEMES = {
  session: { type: 'http', scheme: 'bearer', description: 'A session token from POST /api/auth/login.' },
  apiToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'An API token (`kp_...`) from POST /api/users/api-tokens; read-only tokens may only GET.',
  },
} as const;

/**
 * Who may call: `public` (no one signed in), `session` (a signed-in session only: account
 * security, API tokens), or a role a session or API token must have at least.
 */
export type Access = 'public' | 'session' | 'user' | 'reseller' | 'owner';

type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 405 | 409 | 413 | 415 | 429 | 501 | 502 | 503;

/** `schema` for a JSON answer; `mediaType` alone for one that is not JSON (an HTML page). */
type Responses = Record<number, { description: string; schema?: ZodType; mediaType?: string }>;

export type RouteDoc = {
  operationId: string;
  summary: string;
  tag: Tag;
  access: Access;
  description?: string;
  /** The answers that are not errors: status -> what and its schema. */
  responses: Responses;
  /** Errors the handler itself gives, beyond those that come with its access (listed below). */
  errors?: ErrorStatus[];
  /** Takes an Idempotency-Key header (a retried call answers as the first did). */
  idempotent?: boolean;
  /** Answers are signed (the licensing API) and it is served in maintenance. */
  signed?: boolean;
  /** Served while maintenance mode is on (no 503). */
  servedInMaintenance?: boolean;
};

const ERROR_TEXT: Record<ErrorStatus, string> = {
  400: 'The input is not valid (VALIDATION_ERROR with `details.field`, INVALID_JSON)',
  401: 'Not signed in, or the session or token is no longer valid',
  402: 'Not enough credits or balance',
  403: 'Signed in, but not allowed (role, read-only token, disabled feature, REAUTH_REQUIRED)',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflicts with the current state',
  413: 'The body is over 64 KB',
  415: 'Unsupported media type',
  429: 'Too many requests: retry after the Retry-After header',
  501: 'Not configured on this server',
  502: 'The payment provider failed',
  503: 'Maintenance mode: only owners are served',
};

const json = (schema: ZodType) => ({ 'application/json': { schema: resolver(schema) } });

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
const RETRY_AFTER = { 'Retry-After': header('RetryAfter') };
const SIGNATURE = { 'X-Signature': header('Signature') };
const BOOKMARK = { 'x-d1-bookmark': header('Bookmark') };

/** Headers and parameters every operation refers to, once in the document's components. */
const SHARED_COMPONENTS = {
  headers: {
    Bookmark: BOOKMARK_HEADER_DOC,
    RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
    Signature: {
      description: 'Base64 Ed25519 signature over the exact body bytes; verify with GET /api/v1/licenses/public-key.',
      schema: { type: 'string' },
    },
    IdempotentReplayed: {
      description: 'true when this answer repeats the first call made with the same Idempotency-Key.',
      schema: { type: 'string', const: 'true' },
    },
  },
  parameters: {
    Bookmark: { name: 'x-d1-bookmark', in: 'header', required: false, ...BOOKMARK_HEADER_DOC },
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Makes a retry safe: the same key answers as the first call did (with Idempotent-Replayed: true).',
      schema: { type: 'string', maxLength: 200 },
    },
  },
} as const;

const errorResponse = (status: ErrorStatus, headers: Record<string, { $ref: string }>) => ({
  description: ERROR_TEXT[status],
  headers,
  content: json(errorBodySchema),
});
const errorRef = (status: ErrorStatus) => ({ $ref: `#/components/responses/Error${status}` });

/** One shared response per error status (with the bookmark header, and Retry-After on 429). */
const ERROR_RESPONSES = Object.fromEntries(
  (Object.keys(ERROR_TEXT).map(Number) as ErrorStatus[]).map((status) => [
    `Error${status}`,
    errorResponse(status, { ...BOOKMARK, ...(status === 429 ? RETRY_AFTER : {}) }),
  ]),
) satisfies ResponsesWithResolver;

function errorsFor(doc: RouteDoc): ErrorStatus[] {
  const statuses = new Set<ErrorStatus>(doc.errors ?? []);
  // Every /api request goes through the body limit.
  statuses.add(413);
  if (doc.access !== 'public') [401, 403, 429].forEach((s) => statuses.add(s as ErrorStatus));
  if (!doc.signed && !doc.servedInMaintenance) statuses.add(503);
  return [...statuses].sort((a, b) => a - b);
}

function security(access: Access): Record<string, string[]>[] {
  if (access === 'public') return [];
  if (access === 'session') return [{ session: [] }];
  return [{ session: [] }, { apiToken: [] }];
}

/** The describeRoute middleware for one route; see RouteDoc. */
export function documented(doc: RouteDoc) {
  const headers = { ...BOOKMARK, ...(doc.signed ? SIGNATURE : {}) };
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(doc.responses)) {
    responses[status] = {
      description: answer.description,
      headers: { ...headers, ...(doc.idempotent ? { 'Idempotent-Replayed': header('IdempotentReplayed') } : {}) },
      ...(answer.schema ? { content: json(answer.schema) } : {}),
      ...(answer.mediaType ? { content: { [answer.mediaType]: { schema: { type: 'string' } } } } : {}),
    };
  }
  for (const status of errorsFor(doc)) {
    // A signed answer has one more header, so the licensing API's errors are written out in full.
    responses[status] = doc.signed ? errorResponse(status, { ...headers, ...(status === 429 ? RETRY_AFTER : {}) }) : errorRef(status);
  }
  const parameters = [
    { $ref: '#/components/parameters/Bookmark' },
    ...(doc.idempotent ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
  ];
  return describeRoute({
    operationId: doc.operationId,
    summary: doc.summary,
    description: doc.description,
    tags: [doc.tag],
    security: security(doc.access),
    parameters,
    responses: responses as never,
  });
}

/** What generateSpecs and openAPIRouteHandler are given: the document around the routes' own parts. */
export const OPENAPI_OPTIONS = {
  documentation: {
    openapi: '3.1.0',
    info: {
      title: 'KeyPanel',
      version: '1.0.0',
      description:
        'Selling and managing software license keys. Every error is `{ message, code, details? }` with an honest status; see docs/api.md.',
    },
    servers: [{ url: '/', description: 'This server (same origin)' }],
    tags: TAGS.map((t) => ({ ...t })),
    components: { securitySchemes: SECURITY_SCHEMES, ...SHARED_COMPONENTS, responses: ERROR_RESPONSES },
  },
  // Every route lists its own 400 with the API's envelope (documented() above).
  defaultValidationErrorResponse: false,
  // Else /api/openapi.json itself would be left out, for looking like a file.
  excludeStaticFile: false,
} satisfies Partial<GenerateSpecOptions>;

type Answer = ZodType | { description: string; schema?: ZodType };
const DEFAULT_DESCRIPTION: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 302: 'Redirect' };
type DocOptions = Partial<Pick<RouteDoc, 'tag' | 'access' | 'description' | 'errors' | 'idempotent' | 'signed' | 'servedInMaintenance'>>;

/**
 * A route file's describer, bound to its tag and usual access, so each route's description is one
 * line: `doc('getUser', 'One user', { 200: adminUserResponseSchema }, { errors: [400, 404] })`.
 */
export const routeDocs =
  (defaults: { tag: Tag; access: Access }) =>
  (operationId: string, summary: string, answers: Record<number, Answer>, options: DocOptions = {}) =>
    documented({
      ...defaults,
      ...options,
      operationId,
      summary,
      responses: Object.fromEntries(
        Object.entries(answers).map(([status, answer]) => [
          status,
          answer instanceof z.ZodType ? { description: DEFAULT_DESCRIPTION[Number(status)] ?? 'OK', schema: answer } : answer,
        ]),
      ),
    });
