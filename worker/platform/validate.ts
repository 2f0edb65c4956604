// zod at the edge of the API: a failed parse becomes the one error envelope, never a 500. The
// validators come from hono-openapi, so the schema that checks an input also documents it.
import type { Context, ValidationTargets } from 'hono';
import type { AppEnv } from './context';
import { validator } from 'hono-openapi';
import type { ZodType } from 'zod';
import { AppError } from './errors';

type Issue = { message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> };

export function firstIssueMessage(issues: ReadonlyArray<{ message: string }>): string {
  const issue = issues[0];
  return issue?.message ?? 'Invalid input';
}

const fieldOf = (issue: Issue | undefined) =>
  issue?.path?.map((segment) => String(typeof segment === 'object' ? segment.key : segment)).join('.') || null;

/**
 * Schemas that transform (a preprocess, a coercion) have no exact JSON Schema; the document shows
 * what they accept as far as it can be said, and the schema stays the judge.
 */
const DOCUMENT_OPTIONS = { unrepresentable: 'any' } as const;

function validate<T extends ZodType, Target extends keyof ValidationTargets>(target: Target, schema: T) {
  return validator(
    target,
    schema,
    async (result, c: Context<AppEnv>) => {
      if (!result.success) {
        const issues = result.error;
        throw new AppError('VALIDATION_ERROR', firstIssueMessage(issues), { details: { field: fieldOf(issues[0]) } });
      }
      // An operation declared to need proof checks it from the valid body (as the schema gives it,
      // the hook sees what was sent), before its handler.
      if (target === 'json' && c.var.proof) await c.var.proof(schema.parse(result.data));
    },
    { options: DOCUMENT_OPTIONS },
  );
}

export const jsonBody = <T extends ZodType>(schema: T) => validate('json', schema);
export const queryParams = <T extends ZodType>(schema: T) => validate('query', schema);
export const pathParams = <T extends ZodType>(schema: T) => validate('param', schema);
