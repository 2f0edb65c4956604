// API tokens (issue 7): long-lived bearer tokens for scripts and the CLI, made by owners and
// resellers. One schema per call, shared by the API, the security page and the CLI.
import { z } from 'zod';
import { refuseUnsafeText } from '../../../platform/schemas/text';
import { ROLES } from '../../../platform/vocabulary';

/** Every token starts with this, so the API (and a secret scanner) can tell it from a session token. */
export const API_TOKEN_PREFIX = 'kp_';
export const API_TOKEN_NAME_MAX = 60;
/** Far above what one person scripts with; keeps a runaway script from filling the table. */
export const MAX_API_TOKENS_PER_USER = 25;

export const createApiTokenSchema = z.object({
  name: z
    .string({ error: 'Name is required' })
    .trim()
    .min(1, 'Name is required')
    .max(API_TOKEN_NAME_MAX, `Name must be at most ${API_TOKEN_NAME_MAX} characters`)
    .superRefine(refuseUnsafeText('Name'))
    .regex(/^[\x20-\x7E]+$/, 'Name must contain printable characters only'),
  role: z.enum(ROLES, { error: 'Role must be user, reseller or owner' }),
  readOnly: z.boolean({ error: 'readOnly must be true or false' }).default(false),
});
export type CreateApiTokenInput = z.input<typeof createApiTokenSchema>;

export const apiTokenIdParam = z.object({ id: z.string().regex(/^[0-9a-f]{24}$/, 'API token not found') });

/** A bearer value that claims to be an API token (anything else is a session token). */
export const isApiTokenValue = (bearer: string) => bearer.startsWith(API_TOKEN_PREFIX);
