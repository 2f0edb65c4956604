// Field errors from a zod schema, for a form's `validate`: the first message per field, as the API
// (which parses the same schema) would answer. Takes the schema as a value, so this module does not
// bring zod into a page that validates without it (the sign-in page).
import { validationMessage } from './messages';
import type { FieldErrors, FormValues } from './use-form';

type Issue = { path: PropertyKey[]; message: string };
type Schema = { safeParse: (input: unknown) => { success: true } | { success: false; error: { issues: Issue[] } } };

export function schemaErrors<V extends FormValues>(schema: Schema, values: unknown): FieldErrors<V> {
  const result = schema.safeParse(values);
  if (result.success) return {};
  const errors: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const field = String(issue.path[0] ?? '');
    if (field) errors[field] ??= validationMessage(issue.message);
  }
  return errors as FieldErrors<V>;
}
