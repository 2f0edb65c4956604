// KeyPanel's own key rows: a CSV or JSON of keys (`key`, `product`, `email`, `status`, `expiresAt`,
// `maxActivations`, `devices`), and the CSVs KeyPanel writes itself: `keypanel keys export` (its
// `keyTag` column is the product, `product` is the product's name, `duration` the days and
// `activations` "used/limit"), its JSON (`--format json`: the API's keys, with their devices) and
// the web app's generated keys (`keyTag`, `durationDays`).
import { z } from 'zod';
import { EXPIRY_MODELS, KEY_STATUSES } from '../../../../platform/vocabulary';
import {
  blank,
  email,
  fingerprints,
  IMPORT_MAX_DAYS,
  IMPORT_MAX_DEVICES,
  keyTagParam,
  keyValue,
  optional,
  failed,
  when,
  whole,
  type KeyRow,
  type Mapped,
} from '../import';
import { renameFields, type VendorFormat } from './fields';

const names = {
  key: ['License Key'],
  keyTag: ['Key Tag', 'productKeyTag'],
  product: [],
  email: ['purchasedByEmail', 'Customer Email', 'Buyer Email'],
  status: [],
  expiresAt: ['Expires At', 'Expires', 'expires_at'],
  expiryModel: [],
  days: ['duration', 'durationDays', 'Duration Days'],
  maxActivations: ['activations', 'Device Limit', 'max_activations'],
  devices: ['fingerprints'],
};

/** `keypanel keys export` writes a key's devices as "used/limit": the limit is what the key allows. */
const limitOf = (v: unknown) => (typeof v === 'string' && /^\s*\d+\s*\/\s*\d+\s*$/.test(v) ? v.split('/')[1].trim() : v);

const keyRow = z
  .object({
    key: keyValue,
    keyTag: optional(keyTagParam),
    product: z.preprocess(blank, z.string().optional()),
    email,
    status: optional(z.enum(KEY_STATUSES, { error: `status must be one of ${KEY_STATUSES.join(', ')}` })),
    expiresAt: when('expiresAt'),
    expiryModel: optional(z.enum(EXPIRY_MODELS, { error: `expiryModel must be one of ${EXPIRY_MODELS.join(', ')}` })),
    days: whole('days', 1, IMPORT_MAX_DAYS),
    maxActivations: z.preprocess(limitOf, whole('maxActivations', 1, IMPORT_MAX_DEVICES)),
    devices: fingerprints,
  })
  .transform((r, ctx): KeyRow | typeof z.NEVER => {
    // The product: the key tag column when the file has one (then `product` is its name), else `product`.
    let product = r.keyTag;
    if (product === undefined && r.product !== undefined) {
      const tag = keyTagParam.safeParse(r.product);
      if (!tag.success) {
        ctx.addIssue({
          code: 'custom',
          path: ['product'],
          message: 'product must be a key tag (2 to 10 letters or digits), or give a keyTag column',
        });
        return z.NEVER;
      }
      product = tag.data;
    }
    // A key in use with no expiry is a perpetual one (KeyPanel writes no expiry for no other).
    const perpetual = r.expiryModel === 'perpetual' || (r.expiryModel === undefined && r.status === 'used' && r.expiresAt === undefined);
    if (r.status === 'used' && r.expiresAt === undefined && !perpetual) {
      ctx.addIssue({ code: 'custom', message: `a used ${r.expiryModel} key needs its expiresAt` });
      return z.NEVER;
    }
    const status = r.status ?? (r.expiresAt !== undefined ? 'used' : 'available');
    return {
      type: 'key',
      key: r.key,
      product,
      email: r.email ?? null,
      status: status === 'available' && r.expiresAt !== undefined ? 'used' : status,
      expiresAt: r.expiresAt ?? null,
      ...(perpetual ? { expiryModel: 'perpetual' as const } : r.expiryModel ? { expiryModel: r.expiryModel } : {}),
      days: r.days,
      devices: r.maxActivations,
      fingerprints: r.devices,
    };
  });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A key as the API answers it (`keypanel keys export --format json`): its product's key tag, and its
 * devices' fingerprints from its `activations`, beside its own fields.
 */
function view(record: Record<string, unknown>): Record<string, unknown> {
  const { product, activations, ...rest } = record;
  const out: Record<string, unknown> = { ...rest };
  if (isObject(product)) out.keyTag ??= product.keyTag;
  else if (product !== undefined) out.product = product;
  if (Array.isArray(activations) && activations.every((a) => isObject(a) && typeof a.deviceFingerprint === 'string'))
    out.devices ??= activations.map((a) => (a as { deviceFingerprint: string }).deviceFingerprint);
  else if (activations !== undefined) out.activations = activations;
  return out;
}

export const keypanel: VendorFormat = {
  deviceTypes: [],
  names: () => names,
  view,
  map(record): Mapped {
    const parsed = keyRow.safeParse(renameFields(view(record), names));
    return parsed.success ? { ok: true, row: parsed.data } : failed(parsed.error);
  },
};
