// A success toast for an answer with the API's own words: those words in English (they may say more
// than the screen knows), the screen's own message in any other language.
import { afterEach, describe, expect, it } from 'vitest';
import { switchLanguage, translate } from '../src/lib/i18n';
import { answerText } from '../src/lib/server-words';

afterEach(async () => {
  await switchLanguage('en');
});

describe('answerText', () => {
  it("shows the API's words in English, and the screen's message in Spanish and Arabic", async () => {
    expect(answerText('Key transferred to bruno', translate('myKeys.transferred'))).toBe('Key transferred to bruno');
    await switchLanguage('es');
    expect(answerText('Key transferred to bruno', translate('myKeys.transferred'))).toBe('La clave se transfirió.');
    await switchLanguage('ar');
    expect(answerText('Key transferred to bruno', translate('devices.removed'))).toBe('تمت إزالة الجهاز.');
  });

  it("falls back to the screen's message when the API said nothing", () => {
    expect(answerText(undefined, translate('apiTokens.revoked'))).toBe('The token was revoked.');
  });
});
