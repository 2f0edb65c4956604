// What a user may change of their own profile (PATCH /api/users/profile): the web app's language.
import { z } from 'zod';
import { languageSchema } from '../../../platform/schemas/common';

export const updateProfileSchema = z
  .object({ language: languageSchema.nullable().meta({ description: "The web app's language; null: follow the browser's." }) })
  .strict();
export type UpdateProfile = z.infer<typeof updateProfileSchema>;
