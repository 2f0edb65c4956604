// One role matrix for every admin route: each caller (guest, user, reseller,
// owner) gets exactly the answer the spec allows, and a refusal changes nothing.
import { describe, expect, it } from 'vitest';
import type { TestAnswerBody } from '../platform/api-client';
import { api, signedInUser, type ApiResult } from './helpers';
import { type Role } from '../platform/vocabulary';

export type Caller = 'guest' | Role;
export const CALLERS: Caller[] = ['guest', 'user', 'reseller', 'owner'];

/** 'allowed' means a 2xx answer; 401 and 403 are refusals. */
export type Outcome = 'allowed' | 401 | 403;
export type Outcomes = Record<Caller, Outcome>;

export const OWNER_ONLY: Outcomes = { guest: 401, user: 403, reseller: 403, owner: 'allowed' };
export const RESELLER_AND_OWNER: Outcomes = { guest: 401, user: 403, reseller: 'allowed', owner: 'allowed' };

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type MatrixRequest<M extends Method = Method, P extends string = string> = { method: M; path: P; body?: unknown };

/** A case for one route; `M` and `P` come from its request, so an allowed answer is typed by the document. */
export type MatrixCase<M extends Method = Method, P extends string = string> = {
  /** A fresh request for one caller, so each caller acts on its own target. */
  request: (caller: Caller) => Promise<MatrixRequest<M, P>> | MatrixRequest<M, P>;
  /** Everything the request could change; read before and after a refusal, and compared. */
  state: (request: MatrixRequest<M, P>) => unknown;
  /** Signs a caller in elsewhere (a sandbox with its own database). */
  tokenFor?: (role: Role) => Promise<string>;
  /** Further checks of an allowed answer. */
  allowed?: (res: ApiResult<TestAnswerBody<M, P>>, caller: Caller, request: MatrixRequest<M, P>) => Promise<void> | void;
  /** Another way to call the Worker (a sandbox's `api`). */
  call?: (method: M, path: P, options: { body?: unknown; token?: string }) => Promise<ApiResult<TestAnswerBody<M, P>>>;
};

const sessions = new Map<Role, Promise<string>>();
/** One signed-in account per role for the whole file (in the shared database). */
export function tokenFor(role: Role): Promise<string> {
  if (!sessions.has(role))
    sessions.set(
      role,
      signedInUser(role).then((u) => u.token),
    );
  return sessions.get(role)!;
}

export function roleMatrix<M extends Method, P extends string>(name: string, testCase: MatrixCase<M, P>, outcomes: Outcomes) {
  describe(`role matrix: ${name}`, () => {
    for (const caller of CALLERS) {
      const outcome = outcomes[caller];
      it(`${caller}: ${outcome === 'allowed' ? '2xx' : outcome}`, async () => {
        const request = await testCase.request(caller);
        const token = caller === 'guest' ? undefined : await (testCase.tokenFor ?? tokenFor)(caller);
        const before = await testCase.state(request);
        // `api` is the same call for any method and path, but with the document's many operations
        // TypeScript gives up relating its generic form to this one (TS2590): it is handed over as this one.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- see above: tsc needs it
        const call = testCase.call ?? (api as unknown as NonNullable<MatrixCase<M, P>['call']>);
        const res = await call(request.method, request.path, { body: request.body, token });
        if (outcome === 'allowed') {
          expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(200);
          expect(res.status).toBeLessThan(300);
          await testCase.allowed?.(res, caller, request);
        } else {
          expect(res.status).toBe(outcome);
          expect((res.body as { code?: unknown }).code).toBe(outcome === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN');
          expect(await testCase.state(request)).toEqual(before);
        }
      });
    }
  });
}
