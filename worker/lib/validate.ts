// zod at the edge of the API: a failed parse becomes the one error envelope, never a 500.
import { zValidator } from '@hono/zod-validator';
import type { ValidationTargets } from 'hono';
import type { ZodType } from 'zod';
import { AppError } from './errors';

export function firstIssueMessage(issues: ReadonlyArray<{ message: string; path: PropertyKey[] }>): string {
  const issue = issues[0];
  return issue?.message ?? 'Invalid input';
}

function validate<T extends ZodType, Target extends keyof ValidationTargets>(target: Target, schema: T) {
  return zValidator(target, schema, (result) => {
    if (!result.success) {
      const issues = result.error.issues;
      throw new AppError('VALIDATION_ERROR', firstIssueMessage(issues), {
        details: { field: issues[0]?.path.join('.') || null },
      });
    }
  });
}

export const jsonBody = <T extends ZodType>(schema: T) => validate('json', schema);
export const queryParams = <T extends ZodType>(schema: T) => validate('query', schema);
export const pathParams = <T extends ZodType>(schema: T) => validate('param', schema);
