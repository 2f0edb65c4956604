// The check every test helper runs on each answer (scripts/api-contract.ts), shown to refuse what
// the document does not describe. It runs here in workerd, where code generation is not allowed.
import { describe, expect, it } from 'vitest';
import { checkAnswer, contractDocument, operationFor } from '../../scripts/api-contract';
import { api, signedInUser } from './helpers';

const json = (method: string, path: string, status: number, body: unknown) => () =>
  checkAnswer({ method, path, status, contentType: 'application/json; charset=UTF-8', text: JSON.stringify(body) });

describe('the API contract check', () => {
  it('finds the operation by method and path, literal segments before parameters, the query ignored', () => {
    expect(operationFor('DELETE', '/api/admin/keys/bulk').operation?.operation.operationId).toBe('bulkDeleteKeys');
    expect(operationFor('DELETE', '/api/admin/keys/abc').operation?.operation.operationId).toBe('deleteKey');
    expect(operationFor('POST', '/api/webhooks/deliveries/msg_1/redeliver?x=1').operation?.operation.operationId).toBe('redeliverWebhook');
    expect(operationFor('PATCH', '/api/health')).toEqual({ operation: undefined, pathKnown: true });
  });

  it('passes a real answer, and fails the same answer with a field renamed, missing, added or of the wrong type', async () => {
    const { token } = await signedInUser();
    const profile = await api('GET', '/api/users/profile', { token });
    expect(profile.status).toBe(200);
    expect(json('GET', '/api/users/profile', 200, profile.body)).not.toThrow();

    const { username, ...rest } = profile.body;
    expect(json('GET', '/api/users/profile', 200, { ...rest, userName: username })).toThrow(
      /getProfile \(GET \/api\/users\/profile\) 200 does not match the document:\n {2}\/: Instance does not have required property "username"[\s\S]*\/userName/,
    );
    expect(json('GET', '/api/users/profile', 200, rest)).toThrow(/required property "username"/);
    expect(json('GET', '/api/users/profile', 200, { ...profile.body, extra: 1 })).toThrow(/\/extra/);
    expect(json('GET', '/api/users/profile', 200, { ...profile.body, credits: '5' })).toThrow(/\/credits: .*type/);
  });

  it('fails a nested mismatch with its path, and names the body', () => {
    expect(json('GET', '/api/health', 200, { ok: 'yes' })).toThrow(
      /GET \/api\/health answered 200: getHealth .*\n {2}\/ok: [\s\S]*body: \{"ok":"yes"\}/,
    );
  });

  it('fails every server error, even one the document were to list', () => {
    for (const status of [500, 501, 504]) {
      expect(json('GET', '/api/health', status, { message: 'x', code: 'INTERNAL' })).toThrow(/a server error/);
    }
  });

  it('documents no 500 or 501 for any operation', () => {
    const statuses = Object.values((contractDocument as { paths?: Record<string, unknown> }).paths ?? {}).flatMap((item) =>
      Object.values(item as Record<string, { responses?: Record<string, unknown> }>).flatMap((op) => Object.keys(op.responses ?? {})),
    );
    expect(statuses.length).toBeGreaterThan(100);
    expect(statuses.filter((s) => s === '500' || s === '501')).toEqual([]);
  });

  it('fails an undocumented status, and an error that is not the envelope', () => {
    expect(json('POST', '/api/keys/purchase', 418, { message: 'x', code: 'CONFLICT' })).toThrow(/does not document status 418/);
    expect(json('POST', '/api/keys/purchase', 400, { error: 'bad' })).toThrow(/required property "message"/);
    expect(json('POST', '/api/keys/purchase', 400, { message: 'x', code: 'NO_SUCH_CODE' })).toThrow(/\/code/);
  });

  it('fails an answer in the wrong content type, or a body where none is documented', () => {
    const answer = { method: 'GET', path: '/api/health', status: 200 };
    expect(() => checkAnswer({ ...answer, contentType: 'text/plain', text: 'ok' })).toThrow(
      /documented as application\/json, but came as text\/plain/,
    );
    expect(() => checkAnswer({ ...answer, contentType: 'application/json', text: '{not json' })).toThrow(/not JSON/);
    const redirect = { method: 'GET', path: '/api/auth/google', status: 302, contentType: null, text: '' };
    expect(() => checkAnswer(redirect)).not.toThrow();
    expect(() => checkAnswer({ ...redirect, status: 200 })).toThrow(/does not document status 200/);
  });

  it('takes an unknown /api path only as a refusal with the envelope, and leaves other paths alone', () => {
    expect(json('GET', '/api/no-such-thing', 404, { message: 'Not found', code: 'NOT_FOUND' })).not.toThrow();
    expect(json('GET', '/api/no-such-thing', 200, { ok: true })).toThrow(/no operation in the document has this path/);
    expect(json('PATCH', '/api/health', 200, { ok: true })).toThrow(/the method is not in the document/);
    expect(() => checkAnswer({ method: 'GET', path: '/dashboard', status: 200, contentType: 'text/html', text: '<html>' })).not.toThrow();
  });

  it('is what api() runs: a test that sees an answer the document does not describe fails', async () => {
    const renamed = () => Promise.resolve(Response.json({ okay: true }));
    await expect(api('GET', '/api/health', { fetch: renamed })).rejects.toThrow(/getHealth .* does not match the document/);
    expect((await api('GET', '/api/health')).body).toEqual({ ok: true });
  });
});
