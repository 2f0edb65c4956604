// The admin forms' validation messages (features/admin/schema-messages.ts): the Worker's zod schemas
// write English; the forms show each message in the language in force, and exactly as the API wrote
// it in English. A sentence the table knows must still be one the schemas write, or its translation
// would silently stop showing.
import { afterEach, describe, expect, it } from 'vitest';
import { addFundsSchema } from '../../worker/modules/accounts/schemas/admin-users';
import { bulkDeleteSchema, revokeKeySchema } from '../../worker/modules/keys/schemas/admin-keys';
import { settingsSchema } from '../../worker/modules/settings/schemas';
import { adminSchemaErrors, SCHEMA_SENTENCES, schemaMessage } from '../src/features/admin/schema-messages';
import { switchLanguage } from '../src/lib/i18n';

/** The Worker's source, its tests left out. */
const WORKER = import.meta.glob<string>(['../../worker/**/*.ts', '!../../worker/**/test/**'], {
  query: '?raw',
  import: 'default',
  eager: true,
});

afterEach(async () => {
  await switchLanguage('en');
});

describe('admin validation messages', () => {
  it('reads in English exactly as the API writes them', () => {
    expect(adminSchemaErrors(revokeKeySchema, { reason: ' ' })).toEqual({ reason: 'Please provide a reason for revoking this key' });
    expect(adminSchemaErrors(addFundsSchema, { type: 'credits', amount: 0 })).toEqual({ amount: 'Amount must be at least 1' });
    const ids = Array.from({ length: 501 }, (_, i) => i.toString(16).padStart(24, '0'));
    expect(adminSchemaErrors(bulkDeleteSchema, { keyIds: ids, reason: 'Leaked' })).toEqual({
      keyIds: 'At most 500 keys can be deleted at once',
    });
  });

  it('says them in the language in force, the fields named as the form names them', async () => {
    await switchLanguage('es');
    expect(adminSchemaErrors(revokeKeySchema, { reason: '' })).toEqual({ reason: 'Indica un motivo para revocar esta clave' });
    expect(adminSchemaErrors(addFundsSchema, { type: 'credits', amount: 0 })).toEqual({ amount: 'Importe debe ser al menos 1' });
    const settings = settingsSchema.safeParse({ usdToCreditRate: 0 });
    const rate = settings.success ? null : settings.error.issues.find((i) => i.path[0] === 'usdToCreditRate')!.message;
    expect(schemaMessage(rate!, { usdToCreditRate: 'Tasa de USD a créditos' })).toBe('Tasa de USD a créditos debe ser al menos 1');
    await switchLanguage('ar');
    expect(schemaMessage('Choose at least one event')).toBe('اختر حدثًا واحدًا على الأقل');
  });

  it('leaves a message it cannot say whole as the API wrote it', async () => {
    await switchLanguage('zh-CN');
    expect(schemaMessage('The moon must be at least 3')).toBe('The moon must be at least 3');
    expect(schemaMessage('Something new went wrong')).toBe('Something new went wrong');
  });

  it('knows only sentences the Worker’s schemas still write', () => {
    const worker = Object.values(WORKER).join('\n');
    expect(Object.keys(SCHEMA_SENTENCES).filter((sentence) => !worker.includes(sentence))).toEqual([]);
  });
});
