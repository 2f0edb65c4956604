// License keys: generation (split into the server's per-request limit), the full list and export
// (every page, streamed), one key's details with its devices or seats, revocation and deletion.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { Option, type Command } from 'commander';
import { keyEntitlementsSchema, MAX_BULK_DELETE, revokeKeySchema, topUpSchema } from '../../worker/modules/keys/schemas/admin-keys';
import { regenerateKeySchema } from '../../worker/modules/keys/schemas/key-care';
import type { Schemas } from '../../worker/platform/api-client';
import { contextOf, type CommandContext } from '../lib/context';
import { CliError, UsageError } from '../lib/errors';
import type { Client } from '../lib/http';
import { findKey, findProduct } from '../lib/lookup';
import { notice, printRecord, rowWriter, shortDate, success, type Column, type Format } from '../lib/output';
import { progressBar } from '../lib/progress';
import { parseWith, wholeNumber } from '../lib/validate';
import { KEY_STATUSES } from '../../worker/platform/vocabulary';
import { MAX_PAGE_SIZE } from '../../worker/platform/schemas/paging';
import { registerKeyHistoryCommand } from './key-history';
import { registerKeyRenewalCommands } from './key-renewal';

/** Beyond this a single command is more likely a typo than a plan (a million keys is 1,000 requests at the largest limit). */
const MAX_QUANTITY = 1_000_000;

const STATUS_COLOURS = { available: 'green', used: 'blue', revoked: 'red', expired: 'yellow' } as const;

export const keyColumns: Column<Schemas['LicenseKey']>[] = [
  { header: 'id', value: (k) => k._id, width: 24 },
  // A key is its keyTag (up to 10) and four groups of five: never cut.
  { header: 'key', value: (k) => k.key, width: 34 },
  { header: 'status', value: (k) => k.status, width: 9, colour: (v) => STATUS_COLOURS[v as keyof typeof STATUS_COLOURS] },
  { header: 'keyTag', value: (k) => k.product.keyTag, width: 8 },
  { header: 'product', value: (k) => k.product.name, width: 18 },
  { header: 'duration', value: (k) => k.duration, width: 8, align: 'right' },
  { header: 'activations', value: (k) => `${k.activations.length}/${k.maxActivations}`, width: 11, align: 'right' },
  { header: 'purchasedBy', value: (k) => k.purchasedBy?.username ?? '', width: 14 },
  { header: 'createdBy', value: (k) => k.createdBy?.username ?? '', width: 14 },
  { header: 'createdAt', value: (k) => k.createdAt, width: 16, display: shortDate },
  { header: 'expiresAt', value: (k) => k.expiresAt, width: 16, display: shortDate },
  { header: 'revokeReason', value: (k) => k.revokeReason ?? '', width: 20 },
];

type ListOptions = { status?: string; search?: string; product?: string; mine?: boolean; output?: string };

export function registerKeysCommands(program: Command) {
  const keys = program
    .command('keys')
    .description("Generate, list, export, revoke, regenerate, renew and delete license keys, and read a key's history")
    .addHelpText(
      'after',
      `
Examples:
  $ keypanel keys generate --product APP --quantity 2500 --duration 30 --format csv > new-keys.csv
  $ keypanel keys list --status available
  $ keypanel keys export --product APP --output keys.csv
  $ keypanel keys show APP-XXXX-XXXX-XXXX
  $ keypanel keys revoke APP-XXXX-XXXX-XXXX --reason "Refunded"
  $ keypanel keys regenerate APP-XXXX-XXXX-XXXX --reason "Leaked"
  $ keypanel keys renew APP-XXXX-XXXX-XXXX --days 365 --mine
  $ keypanel keys history APP-XXXX-XXXX-XXXX --all
  $ keypanel keys delete 6650f1c2a1b2c3d4e5f60718 APP-YYYY-YYYY-YYYY --reason "Test keys"
`,
    );

  keys
    .command('generate')
    .description('Generate available keys for a product (owner); large quantities go in several requests')
    .requiredOption('--product <id|keyTag>', 'the product, by id or key tag')
    .requiredOption('--quantity <n>', 'how many keys', wholeNumber('--quantity', 1, MAX_QUANTITY))
    .option('--duration <days>', "days each key runs once activated (default: the product's minimum)", wholeNumber('--duration', 1, 3650))
    .addHelpText(
      'after',
      `
The server generates at most maxKeysPerGeneration keys per request (a setting); a larger
quantity is split into several requests, with progress on stderr. The keys are printed as
each request returns.

Examples:
  $ keypanel keys generate --product APP --quantity 250 --format csv > keys.csv
  $ keypanel keys generate --product 6650f1c2a1b2c3d4e5f60718 --quantity 10 --duration 90
`,
    )
    .action(async (options: { product: string; quantity: number; duration?: number }, command: Command) => {
      const ctx = contextOf(command);
      const api = ctx.api();
      const [product, settings] = await Promise.all([findProduct(api, options.product), api.get('/api/settings')]);
      const perRequest = settings.maxKeysPerGeneration;
      const batches = Math.ceil(options.quantity / perRequest);
      if (batches > 1) notice(`Generating ${options.quantity} keys for ${product.name} in ${batches} requests of at most ${perRequest}.`);
      const out = rowWriter(ctx.format, keyColumns);
      const progress = progressBar('Generating keys', options.quantity, 'keys');
      let generated = 0;
      try {
        while (generated < options.quantity) {
          const quantity = Math.min(perRequest, options.quantity - generated);
          const answer = await api.post('/api/keys/generate', {
            productId: product._id,
            quantity,
            duration: options.duration,
          });
          for (const key of answer.keys) await out.write(key);
          generated += answer.generated;
          progress.advance(answer.generated);
        }
      } catch (err) {
        await out.abort();
        progress.stop();
        if (generated > 0 && err instanceof CliError)
          err.message += ` (${generated} of ${options.quantity} keys were generated and printed before this error)`;
        throw err;
      }
      await out.end();
      progress.done();
      success(`Generated ${generated} license ${generated === 1 ? 'key' : 'keys'} for ${product.name}.`);
    });

  const listOptions = (cmd: Command) =>
    cmd
      .addOption(new Option('--status <status>', 'only keys with this status').choices(KEY_STATUSES))
      .option('--search <text>', 'a key prefix, a product name or key tag, or a buyer or creator username prefix')
      .option('--product <id|keyTag>', 'only keys of this product')
      .option('--mine', 'your own keys (the ones you bought), instead of the keys you manage');

  listOptions(
    keys.command('list').description('List every key you manage (owner: all keys; reseller: the keys you created), page after page'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ keypanel keys list --status available
  $ keypanel keys list --search APP --format csv > app-keys.csv
  $ keypanel keys list --mine
`,
    )
    .action(async (options: ListOptions, command: Command) => {
      const ctx = contextOf(command);
      await listKeys(ctx, ctx.format, options);
    });

  listOptions(
    keys
      .command('export')
      .description('Export every key you manage, as CSV unless --format says otherwise')
      .option('--output <file>', 'write to this file instead of stdout'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ keypanel keys export --output keys.csv
  $ keypanel keys export --status used --format json > used-keys.json
  $ KEYPANEL_TOKEN=kp_... keypanel keys export --product APP | gzip > app-keys.csv.gz
`,
    )
    .action(async (options: ListOptions, command: Command) => {
      const ctx = contextOf(command, 'csv');
      await listKeys(ctx, ctx.format, options);
    });

  keys
    .command('show')
    .description("One key's details: its devices, or a floating key's seats with their leases and last heartbeat")
    .argument('<key>', 'the license key')
    .addHelpText('after', '\nExample:\n  $ keypanel keys show APP-XXXX-XXXX-XXXX\n')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const wanted = ref.trim().toUpperCase();
      const { keys: found } = await ctx.api().get('/api/admin/keys', { search: wanted, limit: 100 });
      const key = found.find((k: Schemas['LicenseKey']) => k.key === wanted);
      if (!key) throw new CliError(`No license key "${ref}" among the keys you manage.`);
      await printRecord(ctx.format, keyDetails(key), key);
    });

  keys
    .command('entitlements')
    .description("A key's entitlements; with --set, the ones granted to it beyond its product's (owner)")
    .argument('<key|id>', 'the license key or its id')
    .option('--set <names>', 'comma-separated lowercase names to grant ("" removes every grant)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ keypanel keys entitlements APP-XXXX-XXXX-XXXX\n  $ keypanel keys entitlements APP-XXXX-XXXX-XXXX --set beta,priority-support\n',
    )
    .action(async (ref: string, options: { set?: string }, command: Command) => {
      const ctx = contextOf(command);
      const api = ctx.api();
      const { _id } = await findKey(api, ref);
      if (options.set !== undefined) {
        const { entitlements } = parseWith(keyEntitlementsSchema, { entitlements: options.set }, '--set: ');
        await api.put(`/api/admin/keys/${_id}/entitlements`, { entitlements });
      }
      const usage = await api.get(`/api/admin/keys/${_id}/usage`, { page: 1, limit: 1 });
      await printRecord(
        ctx.format,
        [
          ['key', usage.key],
          ['entitlements', usage.entitlements.join(', ') || null],
          ['granted', usage.grantedEntitlements.join(', ') || null],
        ],
        { key: usage.key, entitlements: usage.entitlements, granted: usage.grantedEntitlements },
      );
      if (options.set !== undefined) success('Entitlements saved.');
    });

  keys
    .command('usage')
    .description("A metered key's uses left and its usage history, newest first (owner)")
    .argument('<key|id>', 'the license key or its id')
    .option('--limit <n>', 'history entries to show (1-100)', wholeNumber('--limit', 1, 100), 20)
    .addHelpText('after', '\nExample:\n  $ keypanel keys usage APP-XXXX-XXXX-XXXX --limit 50\n')
    .action(async (ref: string, options: { limit: number }, command: Command) => {
      const ctx = contextOf(command);
      const api = ctx.api();
      const { _id } = await findKey(api, ref);
      const usage = await api.get(`/api/admin/keys/${_id}/usage`, { page: 1, limit: options.limit });
      const u = usage.usage;
      await printRecord(
        ctx.format,
        [
          ['key', usage.key],
          ['metered', u ? 'yes' : 'no'],
          ['remaining', u?.remaining ?? null],
          ['allowance', u?.allowance ?? null],
          ['refill', u?.refillAmount ? `to ${u.refillAmount} every ${u.refillDays} days` : null],
          ['nextRefillAt', u?.nextRefillAt ?? null],
          ['consumed', usage.consumed],
          ['toppedUp', usage.toppedUp],
          ...usage.history.map(
            (h, i) =>
              [
                `${i + 1}`,
                `${h.at} ${h.kind === 'consume' ? '-' : '+'}${h.amount}${h.by ? ` by ${h.by.username}` : ''}, ${h.remaining} left`,
              ] as [string, string],
          ),
        ],
        usage,
      );
    });

  keys
    .command('top-up')
    .description('Add uses to a metered key (owner)')
    .argument('<key|id>', 'the license key or its id')
    .requiredOption('--amount <n>', 'uses to add', wholeNumber('--amount', 1, 1_000_000_000))
    .addHelpText('after', '\nExample:\n  $ keypanel keys top-up APP-XXXX-XXXX-XXXX --amount 500\n')
    .action(async (ref: string, options: { amount: number }, command: Command) => {
      const ctx = contextOf(command);
      const { amount } = parseWith(topUpSchema, { amount: options.amount }, '--amount: ');
      const api = ctx.api();
      const { _id } = await findKey(api, ref);
      const answer = await api.post(`/api/admin/keys/${_id}/usage/top-up`, { amount });
      await printRecord(ctx.format, keyDetails(answer.licenseKey), answer.licenseKey);
      success(`Added ${amount} uses to ${answer.licenseKey.key}: ${answer.licenseKey.usage?.remaining ?? 0} left.`);
    });

  keys
    .command('revoke')
    .description('Revoke a key (owner): its devices stop validating at once')
    .argument('<key|id>', 'the license key or its id')
    .requiredOption('--reason <text>', 'why (kept with the key and in the audit log)')
    .addHelpText('after', '\nExample:\n  $ keypanel keys revoke APP-XXXX-XXXX-XXXX --reason "Chargeback"\n')
    .action(async (ref: string, options: { reason: string }, command: Command) => {
      const ctx = contextOf(command);
      const { reason } = parseWith(revokeKeySchema, { reason: options.reason }, '--reason: ');
      const api = ctx.api();
      const { _id } = await findKey(api, ref);
      const answer = await api.put(`/api/keys/${_id}/revoke`, { reason });
      const out = rowWriter(ctx.format, keyColumns);
      await out.write(answer.licenseKey);
      await out.end();
      success(`Revoked ${answer.licenseKey.key}.`);
    });

  keys
    .command('regenerate')
    .description("Replace a leaked key's value (owner): the old value stops validating at once, answering KEY_REGENERATED")
    .argument('<key|id>', 'the license key or its id')
    .requiredOption('--reason <text>', "why (kept in the key's history and the audit log)")
    .option('--free-devices', 'start the new value with no devices (default: it keeps them)')
    .addHelpText('after', '\nExample:\n  $ keypanel keys regenerate APP-XXXX-XXXX-XXXX --reason "Posted on a forum" --free-devices\n')
    .action(async (ref: string, options: { reason: string; freeDevices?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const body = parseWith(regenerateKeySchema, { reason: options.reason, freeDevices: options.freeDevices === true }, '--reason: ');
      const api = ctx.api();
      const { _id, key } = await findKey(api, ref);
      const answer = await api.post(`/api/admin/keys/${_id}/regenerate`, body);
      const out = rowWriter(ctx.format, keyColumns);
      await out.write(answer.licenseKey);
      await out.end();
      success(`Replaced ${key} by ${answer.licenseKey.key}${body.freeDevices ? ', with no devices' : ''}.`);
    });

  registerKeyHistoryCommand(keys);
  registerKeyRenewalCommands(keys);

  keys
    .command('delete')
    .description('Delete keys for good (owner)')
    .argument('<key|id...>', 'license keys or their ids')
    .requiredOption('--reason <text>', 'why (kept in the audit log)')
    .addHelpText('after', '\nExample:\n  $ keypanel keys delete APP-XXXX-XXXX-XXXX 6650f1c2a1b2c3d4e5f60718 --reason "Issued by mistake"\n')
    .action(async (refs: string[], options: { reason: string }, command: Command) => {
      const ctx = contextOf(command);
      const { reason } = parseWith(revokeKeySchema, { reason: options.reason }, '--reason: ');
      const api = ctx.api();
      const ids: string[] = [];
      for (const ref of refs) ids.push((await findKey(api, ref))._id);
      const unique = [...new Set(ids)];
      let deleted = 0;
      const notFound: string[] = [];
      for (let i = 0; i < unique.length; i += MAX_BULK_DELETE) {
        const answer = await api.delete('/api/admin/keys/bulk', {
          keyIds: unique.slice(i, i + MAX_BULK_DELETE),
          reason,
        });
        deleted += answer.deleted;
        notFound.push(...answer.notFound);
      }
      const out = rowWriter<{ id: string; deleted: boolean }>(ctx.format, [
        { header: 'id', value: (r) => r.id, width: 24 },
        { header: 'deleted', value: (r) => r.deleted, width: 7 },
      ]);
      for (const id of unique) await out.write({ id, deleted: !notFound.includes(id) });
      await out.end();
      success(`Deleted ${deleted} license ${deleted === 1 ? 'key' : 'keys'}${notFound.length ? `; ${notFound.length} not found` : ''}.`);
      if (notFound.length) throw new CliError(`${notFound.length} of the keys were not found (already deleted?).`);
    });
}

/**
 * Every page (100 keys each), written as it arrives. Keys created during the export shift later
 * pages by their number, so a key seen twice is written once.
 */
async function listKeys(ctx: CommandContext, format: Format, options: ListOptions) {
  if (options.mine && options.product) throw new UsageError('--product cannot be combined with --mine');
  const search = options.search?.trim() || undefined;
  if (search && search.length > 100) throw new UsageError('--search must be at most 100 characters');
  const api = ctx.api();
  const productId = options.product ? (await findProduct(api, options.product))._id : undefined;
  const query = { status: options.status, search, product: productId, limit: MAX_PAGE_SIZE };
  const stream = options.output ? await openOutput(options.output) : undefined;
  const out = rowWriter(format, keyColumns, { stream });
  const progress = progressBar(options.mine ? 'Fetching your keys' : 'Fetching keys', null, 'keys');
  const seen = new Set<string>();
  let count = 0;
  try {
    for (let page = 1, totalPages = 1; page <= totalPages; page++) {
      const answer = await fetchPage(api, options.mine === true, { ...query, page });
      totalPages = answer.totalPages;
      progress.setTotal(answer.total);
      for (const key of answer.keys) {
        if (seen.has(key._id)) continue;
        seen.add(key._id);
        await out.write(key);
      }
      progress.advance(answer.keys.length);
    }
    count = await out.end();
    progress.done();
  } catch (err) {
    await out.abort();
    progress.stop();
    throw err;
  } finally {
    if (stream) {
      stream.end();
      await once(stream, 'close');
    }
  }
  if (options.output) notice(`Wrote ${count} ${count === 1 ? 'key' : 'keys'} to ${options.output}.`);
}

async function openOutput(file: string) {
  const stream = createWriteStream(file, { flags: 'w' });
  try {
    await once(stream, 'open');
  } catch (err) {
    throw new UsageError(`Cannot write --output ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return stream;
}

function fetchPage(api: Client, mine: boolean, query: Record<string, string | number | undefined>) {
  if (mine) {
    const { product: _product, ...own } = query;
    return api.get('/api/users/my-keys', own);
  }
  return api.get('/api/admin/keys', query);
}

/** A key's fields and, one line each, its devices: a floating seat with its lease, borrow and last heartbeat. */
export function keyDetails(k: Schemas['LicenseKey'], now = Date.now()): Array<[string, string | number | null]> {
  const live = k.activations.filter((a) => a.leaseExpiresAt === null || new Date(a.leaseExpiresAt).getTime() > now);
  const floating = k.activations.some((a) => a.leaseExpiresAt !== null);
  const device = (a: Schemas['LicenseKey']['activations'][number]) => {
    const name = a.deviceInfo?.device ?? a.deviceInfo?.model ?? a.deviceFingerprint;
    const lease =
      a.leaseExpiresAt === null ? '' : new Date(a.leaseExpiresAt).getTime() > now ? `, lease until ${a.leaseExpiresAt}` : ', lease ended';
    const borrow = a.borrowedUntil && new Date(a.borrowedUntil).getTime() > now ? `, borrowed until ${a.borrowedUntil}` : '';
    const pending = a.replacePendingAt ? ', to be replaced' : '';
    return `${a._id} ${name}${lease}${borrow}${pending}, last ${a.leaseExpiresAt === null ? 'seen' : 'heartbeat'} ${a.lastUsed ?? 'never'}`;
  };
  return [
    ['id', k._id],
    ['key', k.key],
    ['status', k.status],
    ['product', `${k.product.name} (${k.product.keyTag})`],
    ['trial', k.trial ? 'yes' : 'no'],
    ['expiresAt', k.expiresAt],
    ['entitlements', k.entitlements.join(', ') || null],
    ...(k.usage ? [['usesLeft', `${k.usage.remaining} (allowance ${k.usage.allowance})`] as [string, string]] : []),
    [floating ? 'seats' : 'devices', `${live.length}/${k.maxActivations}`],
    ...k.activations.map((a, i) => [`${floating ? 'seat' : 'device'} ${i + 1}`, device(a)] as [string, string]),
    ...k.heldSlots.map((h, i) => [`held ${i + 1}`, `${h.deviceFingerprint}, frees at ${h.freesAt}`] as [string, string]),
  ];
}
