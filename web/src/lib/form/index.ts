// Forms: the useForm hook and zod field errors (see use-form.ts).
export { serverFieldError, useForm, type FieldErrors, type Form, type FormOptions, type FormStatus, type FormValues } from './use-form';
export { schemaErrors } from './schema-errors';
