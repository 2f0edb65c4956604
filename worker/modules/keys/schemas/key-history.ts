// A key's history (its activity): the page query and the shape of a line. Shared by the API, the
// web app (My Keys, the owner's key details) and the CLI (`keypanel keys history`).
import { z } from 'zod';
import { KEY_HISTORY_KINDS, RENEWAL_SOURCES } from '../../../platform/vocabulary';
import { isoDate, paged } from '../../../platform/schemas/common';
import { pageQuery } from '../../../platform/schemas/paging';

export const KEY_HISTORY_PAGE_SIZE = 20;

export const keyHistoryQuery = z.object({ ...pageQuery(KEY_HISTORY_PAGE_SIZE) });
export type KeyHistoryQuery = z.output<typeof keyHistoryQuery>;

/**
 * One line of a key's history, newest first. Every line has `at` and `kind`; the other fields are
 * those its kind has, null otherwise.
 */
export const keyHistoryEventSchema = z
  .object({
    _id: z.string(),
    at: isoDate.meta({ description: 'When it happened; for `validated`, the last validation of that day.' }),
    kind: z.enum(KEY_HISTORY_KINDS).meta({
      description:
        'purchased (bought by its customer or a reseller), created (made by the owner), activated (a device took a slot), ' +
        'device_removed (by its customer, its app or the owner: `by`), device_swapped (its slot went to another device), ' +
        'transferred (from, to), regenerated (reason, devicesFreed), revoked (reason), validated (one device on one UTC day: day, validations), ' +
        'renewed (by, days, price, expiresAt), auto_renew_failed (the balance did not cover an auto-renewal of days for price: the key runs out)',
    }),
    device: z.string().nullable().meta({ description: "The device's fingerprint (activated, device_removed, device_swapped, validated)." }),
    deviceName: z.string().nullable().meta({ description: 'The name or model the device gave when it activated.' }),
    by: z.enum(RENEWAL_SOURCES).nullable().meta({
      description: 'device_removed: the owner, or its customer or their app; renewed: its customer, a reseller, the owner or auto-renewal.',
    }),
    from: z.string().nullable().meta({ description: "transferred: the giver's username (null once deleted)." }),
    to: z.string().nullable().meta({ description: "transferred: the recipient's username (null once deleted)." }),
    reason: z.string().nullable().meta({ description: 'regenerated, revoked: the reason given.' }),
    devicesFreed: z.number().nullable().meta({ description: 'regenerated: the devices the new value started without.' }),
    price: z.number().nullable().meta({ description: 'purchased, renewed: the credits it cost (auto_renew_failed: what it would have).' }),
    day: z.string().nullable().meta({ description: 'validated: the UTC day (YYYY-MM-DD).' }),
    validations: z.number().nullable().meta({ description: "validated: that day's count of validations by the device." }),
    days: z.number().nullable().meta({ description: 'renewed, auto_renew_failed: the days of the renewal.' }),
    expiresAt: z.string().nullable().meta({ description: 'renewed: the expiry it gave the key.' }),
  })
  .meta({ id: 'KeyHistoryEvent' });
export type KeyHistoryEvent = z.infer<typeof keyHistoryEventSchema>;

export const keyHistoryResponseSchema = z.object(paged('events', keyHistoryEventSchema)).meta({ id: 'KeyHistoryResponse' });
export type KeyHistoryResponse = { events: KeyHistoryEvent[]; totalPages: number; total: number };
