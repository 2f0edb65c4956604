// PATCH /api/users/profile (issue 47): the web app's language is kept on the account.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '../../../platform/db/schema';
import { api, db, signedInUser } from '../../../test/helpers';

describe('PATCH /api/users/profile', () => {
  it('keeps the chosen language and answers the profile with it', async () => {
    const { user, token } = await signedInUser();
    expect((await api('GET', '/api/users/profile', { token })).body.language).toBeNull();

    const set = await api('PATCH', '/api/users/profile', { token, body: { language: 'pt-BR' } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ _id: user.id, language: 'pt-BR' });
    expect((await api('GET', '/api/users/profile', { token })).body.language).toBe('pt-BR');

    const cleared = await api('PATCH', '/api/users/profile', { token, body: { language: null } });
    expect(cleared.body.language).toBeNull();
    expect((await db().select().from(users).where(eq(users.id, user.id)).get())?.language).toBeNull();
  });

  it.each([[{ language: 'xx' }], [{ language: 'PT-br' }], [{}], [{ language: 'en', role: 'owner' }]])(
    'refuses %j with a 400 and changes nothing',
    async (body) => {
      const { user, token } = await signedInUser();
      await api('PATCH', '/api/users/profile', { token, body: { language: 'ar' } });
      const res = await api('PATCH', '/api/users/profile', { token, body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      const row = await db().select().from(users).where(eq(users.id, user.id)).get();
      expect(row).toMatchObject({ language: 'ar', role: 'user' });
    },
  );

  it('needs a signed-in caller', async () => {
    expect((await api('PATCH', '/api/users/profile', { body: { language: 'es' } })).status).toBe(401);
  });
});
