// A key's care by its holder: a transfer to another account and a regeneration. Shared by the API,
// My Keys and the CLI, so all three give the same messages.
import { z } from 'zod';
import { stepUpFields } from '../../accounts/schemas/security';
import { pageQuery } from '../../../platform/schemas/paging';
import { reason } from './admin-keys';

export const REGENERATE_REASON_REQUIRED = 'Please say why the key is being replaced';
export const TRANSFER_RECIPIENT_REQUIRED = 'Enter the email or username of the account to give the key to';
export const KEY_TRANSFERS_PAGE_SIZE = 10;

export const regenerateKeySchema = z.object({
  /** Whether the new value starts with no devices (true) or keeps the key's devices (false). */
  freeDevices: z.boolean({ error: 'freeDevices must be true or false' }).default(false),
  reason: reason(REGENERATE_REASON_REQUIRED),
});
export type RegenerateKeyInput = z.input<typeof regenerateKeySchema>;

/** Giving a key away asks for proof that the holder is at the keyboard (the password or a 2FA code). */
export const transferKeySchema = z.object({
  to: z
    .string({ error: TRANSFER_RECIPIENT_REQUIRED })
    .trim()
    .min(1, TRANSFER_RECIPIENT_REQUIRED)
    .max(254, 'That is not an email or a username'),
  /**
   * Keep the key's value (and its devices): the giver still knows it. By default the key gets a new
   * value and the giver's devices leave it, so a key given away is gone.
   */
  keepValue: z.boolean({ error: 'keepValue must be true or false' }).default(false),
  ...stepUpFields,
});
export type TransferKeyInput = z.input<typeof transferKeySchema>;

export const keyTransfersQuery = z.object({ ...pageQuery(KEY_TRANSFERS_PAGE_SIZE) });
export type KeyTransfersQuery = z.output<typeof keyTransfersQuery>;
