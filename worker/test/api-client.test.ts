// The type layer every client calls the API through (worker/platform/api-client.ts): concrete paths
// resolve to the document's templates segment by segment. These assertions are checked by
// `npm run typecheck`; the test itself only keeps them in a file vitest runs.
import { describe, expectTypeOf, it } from 'vitest';
import type { AnswerBody, PathPattern, QueryParams, RequestBody, Schemas, TemplateOf, TestAnswerBody } from '../platform/api-client';

describe('the API client types', () => {
  it('match a concrete path to its template, one segment per parameter', () => {
    expectTypeOf<TemplateOf<'get', `/api/webhooks/${string}/deliveries`>>().toEqualTypeOf<'/api/webhooks/{id}/deliveries'>();
    expectTypeOf<TemplateOf<'get', `/api/webhooks/${string}`>>().toEqualTypeOf<'/api/webhooks/{id}'>();
    // A literal template wins over a parameter: bulk is not a key id.
    expectTypeOf<TemplateOf<'delete', '/api/admin/keys/bulk'>>().toEqualTypeOf<'/api/admin/keys/bulk'>();
    expectTypeOf<TemplateOf<'get', '/api/payments/options'>>().toEqualTypeOf<'/api/payments/options'>();
    expectTypeOf<TemplateOf<'get', '/api/admin/users?page=2'>>().toEqualTypeOf<'/api/admin/users'>();
    expectTypeOf<TemplateOf<'get', '/api/nowhere'>>().toBeNever();
    expectTypeOf<TemplateOf<'patch', '/api/products'>>().toBeNever();
  });

  it('give the body, the query and the answer the document names', () => {
    expectTypeOf<RequestBody<'post', '/api/auth/login'>>().toHaveProperty('email').toEqualTypeOf<string>();
    expectTypeOf<QueryParams<'get', '/api/users/my-keys'>>().toHaveProperty('page').toEqualTypeOf<number | undefined>();
    expectTypeOf<AnswerBody<'GET', '/api/users/my-keys'>>().toEqualTypeOf<Schemas['MyKeysResponse']>();
    expectTypeOf<AnswerBody<'GET', '/api/nowhere'>>().toEqualTypeOf<Schemas['Error']>();
    expectTypeOf<'/api/admin/users/abc'>().toExtend<PathPattern<'get'>>();
    expectTypeOf<'/api/admin/nowhere/abc'>().not.toExtend<PathPattern<'get'>>();
  });

  it('let a test read a union answer and the error envelope from one body', () => {
    type Login = TestAnswerBody<'POST', '/api/auth/login'>;
    expectTypeOf<Login['token']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Login['challenge']>().toEqualTypeOf<string | undefined>();
    // A licensing answer's own codes sit beside the envelope's.
    expectTypeOf<'VALID'>().toExtend<TestAnswerBody<'POST', '/api/v1/licenses/activate'>['code']>();
    expectTypeOf<'RATE_LIMITED'>().toExtend<TestAnswerBody<'POST', '/api/v1/licenses/activate'>['code']>();
  });
});
