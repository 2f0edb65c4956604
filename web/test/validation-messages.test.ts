// The API's validation messages in the reader's language (issue 47): the forms show a rule's
// English message from the shared schemas in the language in force, numbers filled in; a message
// the app does not know shows as the API wrote it.
import { afterEach, describe, expect, it } from 'vitest';
import { registerSchema } from '../../worker/modules/accounts/schemas/auth';
import { COMMON_PASSWORD_MESSAGE, PASSWORD_TOO_SHORT_MESSAGE } from '../../worker/modules/accounts/schemas/password-policy';
import { TRANSFER_RECIPIENT_REQUIRED } from '../../worker/modules/keys/schemas/key-care';
import { schemaErrors } from '../src/lib/form';
import { validationMessage } from '../src/lib/form/messages';
import { switchLanguage } from '../src/lib/i18n';

afterEach(async () => {
  await switchLanguage('en');
});

describe('validation messages', () => {
  it('keeps the API’s English in English', () => {
    expect(validationMessage(PASSWORD_TOO_SHORT_MESSAGE)).toBe(PASSWORD_TOO_SHORT_MESSAGE);
    expect(validationMessage(COMMON_PASSWORD_MESSAGE)).toBe(COMMON_PASSWORD_MESSAGE);
  });

  it('shows a known rule in the language in force, its number filled in', async () => {
    await switchLanguage('es');
    expect(validationMessage(PASSWORD_TOO_SHORT_MESSAGE)).toBe('La contraseña debe tener al menos 10 caracteres');
    expect(validationMessage(TRANSFER_RECIPIENT_REQUIRED)).toBe(
      'Introduce el correo o el nombre de usuario de la cuenta a la que ceder la clave',
    );
    await switchLanguage('zh-CN');
    expect(validationMessage(COMMON_PASSWORD_MESSAGE)).toBe('此密码属于最常见的密码之一，是攻击者最先尝试的。请换一个。');
  });

  it('leaves a message it does not know as the API wrote it', async () => {
    await switchLanguage('es');
    expect(validationMessage('Something only the server says')).toBe('Something only the server says');
    expect(validationMessage(undefined)).toBeUndefined();
  });

  it('gives a form’s field errors from a shared schema in the language in force', async () => {
    await switchLanguage('pt-BR');
    expect(schemaErrors(registerSchema, { username: 'ab', email: 'nope', password: 'short' })).toEqual({
      username: 'O nome de usuário deve ter pelo menos 3 caracteres',
      email: 'Digite um endereço de e-mail válido',
      password: 'A senha deve ter pelo menos 10 caracteres',
    });
  });
});
