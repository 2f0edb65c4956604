// The API's validation messages as the admin forms show them, in the language in force. The forms
// check their input with the Worker's own zod schemas (worker/modules/*/schemas), whose messages are
// English: `schemaMessage` reads one of them (its shape, "Balance must be at least 0", or the whole
// sentence) and says it in the language in force; a message it does not know, or whose field it
// cannot name, stays as the API wrote it. `adminSchemaErrors` is lib/form's schemaErrors with each
// message so read.
import { schemaErrors, type FieldErrors, type FormValues } from '../../lib/form';
import { translate, type MessageId } from '../../lib/i18n';

/** The fields the schemas name, as the forms' labels read. */
const NAMES: Record<string, MessageId> = {
  Amount: 'admin.check.name.amount',
  Balance: 'admin.users.balance',
  Credits: 'admin.users.credits',
  Description: 'admin.products.description',
  'Key tag': 'admin.products.keyTag',
  Name: 'admin.products.name',
  Password: 'admin.users.password',
  Quantity: 'admin.generate.quantity',
  'The reason': 'admin.check.name.reason',
  URL: 'admin.webhooks.url',
  Username: 'admin.users.username',
};

/** Whole sentences of the schemas. */
export const SCHEMA_SENTENCES: Record<string, MessageId> = {
  'Please provide a reason for revoking this key': 'admin.check.revokeReason',
  'Please provide a reason for deleting these keys': 'admin.check.deleteReason',
  'Please select at least one key to delete': 'admin.check.noKeysSelected',
  'Choose at least one event': 'admin.check.chooseEvent',
  'Choose at least one product, or every product': 'admin.check.chooseProduct',
  'Quick amounts must lie between the minimum and the maximum': 'admin.check.quickBetween',
  'At most 6 quick amounts': 'admin.check.quickCount',
  'Nothing to update': 'admin.users.nothingToUpdate',
  'URL must use https': 'admin.check.urlHttps',
  'URL must be a valid absolute URL, like https://example.com/webhooks': 'admin.check.urlAbsolute',
  'Key tag must be 2 to 10 letters or digits': 'admin.check.keyTag',
  'Please enter a valid email address': 'admin.check.email',
  'Each entitlement must be lowercase letters or digits, words joined by hyphens (like export-pdf)': 'admin.check.entitlement',
};

/** Sentences about one field ("<field> must be …"), and the message for each shape. */
const SHAPES: [RegExp, MessageId][] = [
  [/^(.+) must be a number$/, 'admin.check.number'],
  [/^(.+) must be a whole number$/, 'admin.check.whole'],
  [/^(.+) must have at most two decimals$/, 'admin.check.decimals'],
  [/^(.+) must be at least (\S+) characters long$/, 'admin.check.minLengthLong'],
  [/^(.+) must be at least (\S+) characters$/, 'admin.check.minLength'],
  [/^(.+) must be at most (\S+) characters$/, 'admin.check.maxLength'],
  [/^(.+) must be at least (\S+)$/, 'admin.check.min'],
  [/^(.+) must be at most (\S+)$/, 'admin.check.max'],
  [/^(.+) must not exceed (\S+)$/, 'admin.check.notExceed'],
  [/^(.+) is required$/, 'admin.check.required'],
];
const BULK_LIMIT = /^At most (\d+) keys can be deleted at once$/;

/**
 * A schema's message in the language in force. `names` names the fields the schema calls by their
 * API names ({ usdToCreditRate: 'USD to Credit Rate' }), already in the language in force.
 */
export function schemaMessage(message: string, names: Record<string, string> = {}): string {
  if (message in SCHEMA_SENTENCES) return translate(SCHEMA_SENTENCES[message]);
  const bulk = BULK_LIMIT.exec(message);
  if (bulk) return translate('admin.check.bulkLimit', { count: Number(bulk[1]) });
  const name = (word: string) => names[word] ?? (word in NAMES ? translate(NAMES[word]) : null);
  for (const [shape, id] of SHAPES) {
    const found = shape.exec(message);
    if (!found) continue;
    const field = name(found[1]);
    if (field === null) return message;
    const other = found[2] === undefined ? undefined : (name(found[2]) ?? found[2]);
    return translate(id, { name: field, limit: other ?? '' });
  }
  return message;
}

/** lib/form's schemaErrors, each message in the language in force. */
export function adminSchemaErrors<V extends FormValues>(
  schema: Parameters<typeof schemaErrors>[0],
  values: unknown,
  names: Record<string, string> = {},
): FieldErrors<V> {
  const errors = schemaErrors<V>(schema, values) as Record<string, string>;
  return Object.fromEntries(Object.entries(errors).map(([field, message]) => [field, schemaMessage(message, names)])) as FieldErrors<V>;
}
