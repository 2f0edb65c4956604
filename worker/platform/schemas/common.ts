// Pieces every module's answers share: dates, a paged list, the vocabulary as zod enums, a reference
// to a user. `.meta({ id })` names a shape in the OpenAPI document's components.
import { z } from 'zod';
import { KEY_STATUSES, LANGUAGES, PRODUCT_TYPES, ROLES } from '../vocabulary';

export const isoDate = z.string().meta({ format: 'date-time' });

export const nullableDate = isoDate.nullable();

export const roleSchema = z.enum(ROLES).meta({ id: 'Role' });
export const languageSchema = z.enum(LANGUAGES).meta({ id: 'Language', description: 'A BCP 47 language tag the web app speaks.' });

// The shop (issue 3): products, license keys, purchases and the exchange.
export const productTypeSchema = z.enum(PRODUCT_TYPES).meta({ id: 'ProductType' });

export const keyStatusSchema = z.enum(KEY_STATUSES).meta({ id: 'KeyStatus' });

/** A user a key points at; `username` reads 'Deleted user' once the account is gone. */
export const keyUserRefSchema = z.object({ _id: z.string(), username: z.string() }).meta({ id: 'KeyUserRef' });

export type KeyUserRef = z.infer<typeof keyUserRefSchema>;

export const paged = <T extends z.ZodType>(name: string, item: T) => ({ [name]: z.array(item), totalPages: z.number(), total: z.number() });

export const healthSchema = z.object({ ok: z.literal(true) }).meta({ id: 'Health' });
