// An id named in a path or a body: any row's, checked for shape only (the lookup answers 404).
import { z } from 'zod';

/** `what` names it in the messages ("Product is required"). */
export const idSchema = (what: string) =>
  z
    .string({ error: `${what} is required` })
    .trim()
    .min(1, `${what} is required`)
    .max(64, `${what} is not valid`);
