// `keypanel keys renew` and `keypanel keys auto-renew`: the same key runs for more days. A customer
// renews their own key (--mine) with their credits; a reseller a key they bought for a customer at
// their tier's price; the owner any key, free or charged to an account (--charge).
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { adminRenewKeySchema, autoRenewSchema, renewKeySchema } from '../../worker/modules/keys/schemas/renewal';
import { MAX_DURATION_DAYS } from '../../worker/modules/catalog/schemas';
import type { Schemas } from '../../worker/platform/api-client';
import { contextOf } from '../lib/context';
import { CliError, UsageError } from '../lib/errors';
import type { Client } from '../lib/http';
import { findKey, findUserId } from '../lib/lookup';
import { printRecord, success } from '../lib/output';
import { parseWith, wholeNumber } from '../lib/validate';

const MONGO_LIKE_ID = /^[0-9a-f]{24}$/;

/** One of my own keys (My Keys), by id or by the key itself. */
async function findMyKey(api: Client, ref: string): Promise<{ _id: string; key: string }> {
  const wanted = ref.trim();
  if (MONGO_LIKE_ID.test(wanted)) return { _id: wanted, key: wanted };
  const key = wanted.toUpperCase();
  const { keys } = await api.get('/api/users/my-keys', { search: key, limit: 100 });
  const found = keys.find((k: Schemas['LicenseKey']) => k.key === key);
  if (!found) throw new CliError(`No license key "${ref}" among your keys.`);
  return found;
}

export function registerKeyRenewalCommands(keys: Command) {
  keys
    .command('renew')
    .description('Renew a key: the same value runs for more days (from its expiry while live, from now once expired)')
    .argument('<key|id>', 'the license key or its id')
    .requiredOption('--days <n>', "days to add, within the product's range", wholeNumber('--days', 1, MAX_DURATION_DAYS))
    .option('--mine', 'one of your own keys, paid with your credits at the list price')
    .option('--charge <user>', 'owner only: the account (id, email or username) that pays the list price (default: free)')
    .addHelpText(
      'after',
      `
Without --mine: a reseller renews a key they bought for a customer, at their tier's price and with
their credits; the owner extends any key, free unless --charge names who pays (audited).
The request carries an Idempotency-Key, so a retried command never renews twice.

Examples:
  $ keypanel keys renew APP-XXXX-XXXX-XXXX --days 365 --mine
  $ keypanel keys renew APP-XXXX-XXXX-XXXX --days 30
  $ keypanel keys renew 6650f1c2a1b2c3d4e5f60718 --days 30 --charge alice@example.com
`,
    )
    .action(async (ref: string, options: { days: number; mine?: boolean; charge?: string }, command: Command) => {
      const ctx = contextOf(command);
      if (options.mine && options.charge)
        throw new UsageError('--charge is for the owner renewing a key from the admin side, not with --mine');
      const api = ctx.api();
      const idempotency = { 'idempotency-key': randomUUID() };
      let answer: Schemas['RenewalResponse'];
      if (options.mine) {
        const body = parseWith(renewKeySchema, { days: options.days }, '--days: ');
        const { _id } = await findMyKey(api, ref);
        answer = await api.post(`/api/users/my-keys/${_id}/renew`, body, idempotency);
      } else {
        const chargeTo = options.charge ? (await findUserId(api, options.charge))._id : null;
        const body = parseWith(adminRenewKeySchema, { days: options.days, chargeTo }, '--days: ');
        const { _id } = await findKey(api, ref);
        answer = await api.post(`/api/admin/keys/${_id}/renew`, body, idempotency);
      }
      const r = answer.renewal;
      await printRecord(
        ctx.format,
        [
          ['key', r.key],
          ['product', r.product],
          ['days', r.days],
          ['credits', r.credits],
          ['previousExpiresAt', r.previousExpiresAt],
          ['expiresAt', r.expiresAt],
          ['payerCredits', answer.remainingCredits],
        ],
        answer,
      );
      success(`Renewed ${r.key} for ${r.days} day${r.days === 1 ? '' : 's'}: it now expires ${r.expiresAt}.`);
    });

  keys
    .command('auto-renew')
    .description('Switch auto-renewal of one of your keys from your credits on (--days) or off (--off)')
    .argument('<key|id>', 'the license key or its id')
    .option('--days <n>', 'days each renewal adds', wholeNumber('--days', 1, MAX_DURATION_DAYS))
    .option('--off', 'turn auto-renewal off')
    .addHelpText(
      'after',
      `
The shop renews the key a few days before each expiry when your credits cover it; when they do
not, the key runs out and My Keys says so.

Examples:
  $ keypanel keys auto-renew APP-XXXX-XXXX-XXXX --days 30
  $ keypanel keys auto-renew APP-XXXX-XXXX-XXXX --off
`,
    )
    .action(async (ref: string, options: { days?: number; off?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      if ((options.days === undefined) === !options.off) throw new UsageError('Give either --days <n> or --off');
      const body = parseWith(autoRenewSchema, { days: options.off ? null : options.days }, '--days: ');
      const api = ctx.api();
      const { _id, key } = await findMyKey(api, ref);
      const answer = await api.put(`/api/users/my-keys/${_id}/auto-renew`, body);
      await printRecord(
        ctx.format,
        [
          ['key', key],
          ['autoRenewDays', answer.autoRenewDays],
          ['autoRenewFailedAt', answer.autoRenewFailedAt],
        ],
        answer,
      );
      success(answer.message);
    });
}
