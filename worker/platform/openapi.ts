// How a route describes itself in the OpenAPI document (GET /api/openapi.json): `documented({...})`
// is a hono-openapi describeRoute with the API's conventions filled in: the security a caller needs,
// the error statuses that come with it (each the one `{message, code, details?}` envelope), the
// D1 bookmark header every /api call takes and gives, Retry-After on 429, X-Signature on licensing.
import { describeRoute, resolver, type GenerateSpecOptions, type ResponsesWithResolver } from 'hono-openapi';
import { z, type ZodType } from 'zod';
import { codeToStatus, type ErrorCode } from './errors';
import { type Role } from './vocabulary';
import { typeEverySchema } from './openapi-types';

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
  { name: 'Resellers', description: "Reseller tiers, referred customers, commissions and a reseller's statistics." },
  { name: 'Licensing', description: 'The API licensed software calls. Public; every answer is signed (X-Signature).' },
  { name: 'Webhooks', description: 'Outbound webhook endpoints and their deliveries.' },
  { name: 'Mail', description: 'One-click unsubscribe from a notice, and the local mailbox of local development.' },
  { name: 'Meta', description: 'Health and this document.' },
] as const;
export type Tag = (typeof TAGS)[number]['name'];

export const BOOKMARK_HEADER_DOC = {
  description:
    'D1 session bookmark: send the last one you received to read at least what you (or whoever sent it to you) last wrote; every /api answer carries the newest.',
  schema: { type: 'string' as const },
};

export const SECURITY_SCHEMES = {
  session: {
    type: 'http',
    scheme: 'bearer',
    description: "A session token from POST /api/auth/login. An operation's scope names the least role it needs.",
  },
  apiToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API token (`kp_...`) from POST /api/users/api-tokens. The scopes name the least role it needs, and `write` where a read-only token is refused. Operations that need proof (`x-keypanel.proof`) take no token.',
  },
} as const;

/** Who may call an operation: anyone (`public`), or a signed-in caller with at least this role. */
export type Access = 'public' | Role;

type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 405 | 409 | 413 | 415 | 429 | 502 | 503;

/** `schema` for a JSON answer; `mediaType` alone for one that is not JSON (an HTML page, an export's formats). */
type Responses = Record<number, { description: string; schema?: ZodType; mediaType?: string | string[] }>;

/**
 * One operation's declaration: what the document says of it, and who may call it and how, which
 * the operation's middleware enforces (modules/accounts/operation.ts) and the document states (security
 * requirements with role names, and the `x-keypanel` extension).
 */
export type RouteDoc = {
  operationId: string;
  summary: string;
  tag: Tag;
  access: Access;
  /** Whether API tokens may call it (signed-in operations; default true). Account security takes a session only. */
  tokens?: boolean;
  /**
   * Whether it only reads (default: GET and HEAD do): a read-only API token may call it, and it runs
   * on a D1 session that a replica may serve.
   */
  reads?: boolean;
  /**
   * A read whose answer must see every committed write: it runs on the primary, never a replica
   * that may lag (a validation, which signs a fresh offline token: a revoked, regenerated or
   * released key must never get one from a replica that has not seen the change).
   */
  primary?: boolean;
  /**
   * Proof (step-up) beyond the session: `always`, checked before the handler runs; `conditional`,
   * asked by the handler when the change grants power (a raised role, say). API tokens never give it.
   */
  proof?: 'always' | 'conditional';
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

/** What the `x-keypanel` extension of an operation says: the declaration's policy, as the middleware reads it. */
export type OperationPolicy = {
  access: Access;
  tokens: boolean;
  /** Left out where the method decides (GET and HEAD read). */
  reads?: boolean;
  proof: 'always' | 'conditional' | null;
  servedInMaintenance: boolean;
};

export const policyOf = (doc: RouteDoc): OperationPolicy => ({
  access: doc.access,
  tokens: doc.access !== 'public' && doc.proof !== 'always' && doc.tokens !== false,
  ...(doc.reads === undefined ? {} : { reads: doc.reads }),
  proof: doc.proof ?? null,
  servedInMaintenance: Boolean(doc.servedInMaintenance || doc.signed),
});

const ERROR_TEXT: Record<ErrorStatus, string> = {
  400: 'The input is not valid (VALIDATION_ERROR with `details.field`, INVALID_JSON)',
  401: 'Not signed in, or the session or token is no longer valid',
  402: 'Not enough credits or balance',
  403: 'Signed in, but not allowed (role, read-only token, disabled feature, REAUTH_REQUIRED)',
  404: 'Not found; or NOT_CONFIGURED, a feature this server is not set up for (the message says what to set)',
  405: 'Method not allowed',
  409: 'Conflicts with the current state',
  413: 'The body is over 64 KB',
  415: 'Unsupported media type',
  429: 'Too many requests: retry after the Retry-After header',
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
  if (doc.proof) statuses.add(403);
  if (!doc.signed && !doc.servedInMaintenance) statuses.add(503);
  return [...statuses].sort((a, b) => a - b);
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether an operation only reads: as it declares, else as its method says (GET, HEAD and OPTIONS read). */
export const readsFor = (declared: boolean | undefined, method: string) => declared ?? READ_METHODS.has(method.toUpperCase());

/**
 * The security requirements of an operation, with role names as their scopes (OpenAPI 3.1 allows
 * them for any scheme): a session with at least that role, or an API token with it, `write` where a
 * read-only token is refused.
 */
export function securityOf(policy: OperationPolicy & { reads: boolean }): Record<string, string[]>[] {
  if (policy.access === 'public') return [];
  const reads = policy.reads;
  const session = { session: [policy.access] };
  return policy.tokens ? [session, { apiToken: reads ? [policy.access] : [policy.access, 'write'] }] : [session];
}

/**
 * Fills in what an operation's method decides (whether it reads, and so its security) from its
 * `x-keypanel` policy: the served document and docs/openapi.json both pass through here.
 */
export function finishDocument<D extends { paths?: Record<string, Record<string, unknown>> }>(document: D): D {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const op = operation as { 'x-keypanel'?: OperationPolicy; security?: unknown };
      const policy = op['x-keypanel'];
      if (!policy) continue;
      const resolved = { ...policy, reads: readsFor(policy.reads, method) };
      op['x-keypanel'] = resolved;
      op.security = securityOf(resolved);
    }
  }
  typeEverySchema(document);
  return document;
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
      ...(answer.mediaType
        ? { content: Object.fromEntries([answer.mediaType].flat().map((type) => [type, { schema: { type: 'string' } }])) }
        : {}),
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
    parameters,
    responses: responses as never,
    // The declaration's policy, for the document's reader and finishDocument below.
    ...({ 'x-keypanel': policyOf(doc) } as object),
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

type Answer = ZodType | { description: string; schema?: ZodType; mediaType?: string | string[] };
const DEFAULT_DESCRIPTION: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 302: 'Redirect' };
type DocOptions = Partial<Omit<RouteDoc, 'operationId' | 'summary' | 'responses'>>;

/** A route file's defaults: its tag and usual access. */
export type RouteDefaults = { tag: Tag; access: Access; tokens?: boolean };

/**
 * A declaration in one line, from the route file's defaults:
 * `('getUser', 'One user', { 200: adminUserResponseSchema }, { errors: [400, 404] })`.
 */
export const declaration =
  (defaults: RouteDefaults) =>
  (operationId: string, summary: string, answers: Record<number, Answer>, options: DocOptions = {}): RouteDoc => ({
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
