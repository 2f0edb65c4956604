// The API's types for its own clients (web app, CLI, tests), read from the OpenAPI document's
// generated `paths`: given a method and a concrete path (`/api/admin/users/${id}`), the request
// body, the query and the success body. Changing a route's schema means `npm run api:generate`,
// and every caller that no longer fits the document stops compiling.
import type { components, paths } from '../../generated/api-paths';

export type ApiMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type Path = keyof paths;

/** The `{message, code, details?}` body of every error answer. */
export type ApiErrorBody = components['schemas']['Error'];
export type ErrorCode = ApiErrorBody['code'];

// Paths are matched segment by segment, so a `{param}` stands for exactly one segment: the
// concrete `/api/webhooks/${id}/deliveries` is `/api/webhooks/{id}/deliveries`, never `/api/webhooks/{id}`.
type Segments<P extends string> = P extends `${infer Head}/${infer Rest}` ? [Head, ...Segments<Rest>] : [P];
type SegmentsMatch<Concrete extends string[], Template extends string[]> = Concrete extends [
  infer C extends string,
  ...infer CRest extends string[],
]
  ? Template extends [infer T extends string, ...infer TRest extends string[]]
    ? T extends `{${string}}`
      ? C extends '' // a parameter is never empty
        ? false
        : SegmentsMatch<CRest, TRest>
      : [C] extends [T]
        ? SegmentsMatch<CRest, TRest>
        : false
    : false
  : Template extends []
    ? true
    : false;

/** The path without its query string (tests write `/api/admin/users?page=2`). */
type WithoutQuery<P extends string> = P extends `${infer Base}?${string}` ? Base : P;

/** The document's template for a concrete path and method: the path itself when it is one, else the templates it fills. */
export type TemplateOf<M extends ApiMethod, P extends string> =
  WithoutQuery<P> extends infer Bare extends string
    ? Bare extends WithMethod<M>
      ? Bare
      : { [T in WithMethod<M>]: SegmentsMatch<Segments<Bare>, Segments<T>> extends true ? T : never }[WithMethod<M>]
    : never;

/** Templates that offer this method. */
type WithMethod<M extends ApiMethod> = { [T in Path]: paths[T][M] extends { responses: unknown } ? T : never }[Path];

type Pattern<T extends string> = T extends `${infer Head}{${string}}${infer Tail}` ? `${Head}${string}${Pattern<Tail>}` : T;
/**
 * Every path this method may be called with, parameters as `${string}` (`/api/admin/users/${string}`):
 * a typed client constrains its path to it, so a path or method the document lacks does not compile.
 */
export type PathPattern<M extends ApiMethod> = Pattern<WithMethod<M>>;

/** The document's schemas by component name (`Schemas['User']`), for what a client reads besides answers. */
export type Schemas = components['schemas'];

type Operation<M extends ApiMethod, P extends string> = paths[TemplateOf<M, P> & Path][M];

type SuccessStatus = 200 | 201 | 202 | 204;
type JsonOf<R> = R extends { content: { 'application/json': infer Body } } ? Body : R extends { content?: never } ? null : never;

/** The JSON body of the operation's success answers. */
export type ResponseBody<M extends ApiMethod, P extends string> =
  Operation<M, P> extends { responses: infer R } ? JsonOf<R[keyof R & SuccessStatus]> : never;

/** The JSON request body the operation takes (`never` when it takes none). */
export type RequestBody<M extends ApiMethod, P extends string> =
  Operation<M, P> extends { requestBody?: { content: { 'application/json': infer Body } } } ? Body : never;

/** The query parameters the operation takes. */
export type QueryParams<M extends ApiMethod, P extends string> =
  Operation<M, P> extends { parameters: { query?: infer Q } } ? ([Q] extends [never] ? never : NonNullable<Q>) : never;

/** A success body for a method written as the tests write it (`'GET'`), or the envelope when the path is not documented. */
export type AnswerBody<M extends string, P extends string> =
  Lowercase<M> extends ApiMethod
    ? [TemplateOf<Lowercase<M>, P>] extends [never]
      ? ApiErrorBody
      : ResponseBody<Lowercase<M>, P>
    : ApiErrorBody;

type UnionKeys<T> = T extends unknown ? keyof T : never;
type IsUnion<T, All = T> = T extends unknown ? ([All] extends [T] ? false : true) : never;
/** A union of object shapes as one object: every member's fields, `undefined` where a member lacks one. */
type Flatten<T> = true extends IsUnion<T> ? { [K in UnionKeys<T>]: T extends unknown ? (K extends keyof T ? T[K] : undefined) : never } : T;
/** The success body with the envelope's fields beside it: a shared field (`code`, `message`) may hold either side's value. */
type WithEnvelope<S> = S extends readonly unknown[]
  ? S & Partial<ApiErrorBody>
  : { [K in keyof S]: K extends keyof ApiErrorBody ? S[K] | ApiErrorBody[K] : S[K] } & {
      [K in Exclude<keyof ApiErrorBody, keyof S>]?: ApiErrorBody[K];
    };

/**
 * What a test reads from an answer whatever its status: the success body (one object when the
 * document offers several shapes, e.g. a session or a two-factor challenge), with the error
 * envelope's fields beside it, since a test reads `body.code` after a 4xx.
 */
export type TestAnswerBody<M extends string, P extends string> = WithEnvelope<Flatten<AnswerBody<M, P>>>;
