// `keypanel keys history`: a key's history (its activity), newest first: its purchase, activations,
// device removals and swaps, transfers, regenerations, revocation and the days a device validated.
// The owner reads any key, a reseller the keys they bought for customers, and with --mine a
// customer their own.
import type { Command } from 'commander';
import type { Schemas } from '../../worker/platform/api-client';
import { MAX_PAGE_SIZE } from '../../worker/platform/schemas/paging';
import { KEY_HISTORY_PAGE_SIZE } from '../../worker/modules/keys/schemas/key-history';
import { contextOf } from '../lib/context';
import { CliError, UsageError } from '../lib/errors';
import type { Client } from '../lib/http';
import { findKey } from '../lib/lookup';
import { notice, rowWriter, type Column } from '../lib/output';
import { MONGO_LIKE_ID, wholeNumber } from '../lib/validate';

type KeyHistoryEvent = Schemas['KeyHistoryEvent'];
type Options = { mine?: boolean; page?: number; limit?: number; all?: boolean };

/** What a line says beyond its kind. */
export function eventDetail(e: KeyHistoryEvent): string {
  const device = [e.deviceName, e.device].filter(Boolean).join(' ');
  switch (e.kind) {
    case 'purchased':
      return e.price === null ? '' : `${e.price} credits`;
    case 'created':
      return '';
    case 'activated':
    case 'device_swapped':
      return device;
    case 'device_removed':
      return `${device}, by ${e.by === 'owner' ? 'the owner' : 'its customer or app'}`;
    case 'transferred':
      return `from ${e.from ?? '(deleted account)'} to ${e.to ?? '(deleted account)'}`;
    case 'regenerated':
      return [e.reason, e.devicesFreed ? `${e.devicesFreed} devices freed` : null].filter(Boolean).join(', ');
    case 'revoked':
      return e.reason ?? '';
    case 'validated':
      return `${device}: ${e.validations} on ${e.day}`;
    case 'renewed':
      return `${e.days} days by ${e.by === 'auto' ? 'auto-renewal' : `its ${e.by}`}, ${e.price ?? 0} credits, to ${e.expiresAt}`;
    case 'auto_renew_failed':
      return `auto-renewal of ${e.days} days (${e.price ?? 0} credits) not covered by the balance: the key runs out`;
  }
}

const columns: Column<KeyHistoryEvent>[] = [
  { header: 'at', value: (e) => e.at, width: 24 },
  { header: 'kind', value: (e) => e.kind, width: 14 },
  { header: 'detail', value: (e) => eventDetail(e), width: 60 },
];

/** One of the customer's own keys, by id or by the key itself. */
async function findOwnKey(api: Client, ref: string): Promise<{ _id: string }> {
  const wanted = ref.trim();
  if (MONGO_LIKE_ID.test(wanted)) return { _id: wanted };
  const key = wanted.toUpperCase();
  const { keys } = await api.get('/api/users/my-keys', { search: key, limit: 100 });
  const found = keys.find((k) => k.key === key);
  if (!found) throw new CliError(`No license key "${ref}" among your keys.`, 'List them with `keypanel keys list --mine`.');
  return found;
}

export function registerKeyHistoryCommand(keys: Command) {
  keys
    .command('history')
    .description(
      "A key's history, newest first: purchase, activations, device removals and swaps, transfers, regenerations, revocation, validated days",
    )
    .argument('<key|id>', 'the license key or its id')
    .option('--mine', 'one of your own keys (the ones you bought), instead of a key you manage')
    .option('--page <n>', 'this page (from 1)', wholeNumber('--page', 1, 1_000_000))
    .option('--limit <n>', `lines a page (default ${KEY_HISTORY_PAGE_SIZE})`, wholeNumber('--limit', 1, MAX_PAGE_SIZE))
    .option('--all', 'every page, oldest last')
    .addHelpText(
      'after',
      `
Examples:
  $ keypanel keys history APP-XXXX-XXXX-XXXX
  $ keypanel keys history APP-XXXX-XXXX-XXXX --page 2 --limit 50
  $ keypanel keys history 6650f1c2a1b2c3d4e5f60718 --all --format csv > history.csv
  $ keypanel keys history APP-XXXX-XXXX-XXXX --mine
`,
    )
    .action(async (ref: string, options: Options, command: Command) => {
      if (options.all && options.page !== undefined) throw new UsageError('--page cannot be combined with --all');
      const ctx = contextOf(command);
      const api = ctx.api();
      const { _id } = options.mine ? await findOwnKey(api, ref) : await findKey(api, ref);
      const limit = options.all ? MAX_PAGE_SIZE : (options.limit ?? KEY_HISTORY_PAGE_SIZE);
      const fetchPage = (page: number) =>
        options.mine
          ? api.get(`/api/users/my-keys/${_id}/history`, { page, limit })
          : api.get(`/api/admin/keys/${_id}/history`, { page, limit });
      const out = rowWriter(ctx.format, columns);
      const first = options.page ?? 1;
      const last = { page: first, totalPages: 1, total: 0 };
      try {
        for (let page = first; page <= (options.all ? last.totalPages : first); page++) {
          const answer = await fetchPage(page);
          Object.assign(last, { page, totalPages: answer.totalPages, total: answer.total });
          for (const event of answer.events) await out.write(event);
        }
        await out.end();
      } catch (err) {
        await out.abort();
        throw err;
      }
      if (!options.all && last.totalPages > 1)
        notice(
          `Page ${last.page} of ${last.totalPages} (${last.total} lines). More with --page ${Math.min(last.page + 1, last.totalPages)}, or --all.`,
        );
    });
}
