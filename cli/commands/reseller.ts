// A reseller's statistics and customers: their own (a reseller's session or API token), or any
// reseller's for the owner (--reseller). JSON gives the whole answer; a table or CSV, one row per
// day (or per product, --by product), and one per customer.
import { Option, type Command } from 'commander';
import { RESELLER_STATS_PERIODS } from '../../worker/modules/resellers/schemas';
import type { Schemas } from '../../worker/platform/api-client';
import type { Client } from '../lib/http';
import { contextOf } from '../lib/context';
import { UsageError } from '../lib/errors';
import { findUserId } from '../lib/lookup';
import { notice, printRecord, rowWriter, shortDate, type Column } from '../lib/output';
import { progressBar, writeAllPages } from '../lib/progress';

type ResellerStats = Schemas['ResellerStats'];
type Day = ResellerStats['daily'][number];
type Product = ResellerStats['byProduct'][number];
type Customer = Schemas['ResellerCustomer'];

const PAGE_SIZE = 100;

const dayColumns: Column<Day>[] = [
  { header: 'date', value: (d) => d.date, width: 10 },
  { header: 'earned', value: (d) => d.earned, width: 9, align: 'right' },
  { header: 'spent', value: (d) => d.spent, width: 9, align: 'right' },
];

const productColumns: Column<Product>[] = [
  { header: 'productId', value: (p) => p.productId, width: 24 },
  { header: 'name', value: (p) => p.name, width: 24 },
  { header: 'keyTag', value: (p) => p.keyTag, width: 10 },
  { header: 'earned', value: (p) => p.earned, width: 9, align: 'right' },
  { header: 'spent', value: (p) => p.spent, width: 9, align: 'right' },
  { header: 'customerPurchases', value: (p) => p.customerPurchases, width: 17, align: 'right' },
  { header: 'keysForCustomers', value: (p) => p.keysForCustomers, width: 16, align: 'right' },
];

const customerColumns: Column<Customer>[] = [
  { header: 'id', value: (c) => c._id, width: 24 },
  { header: 'username', value: (c) => c.username, width: 18 },
  { header: 'email', value: (c) => c.email, width: 28 },
  { header: 'createdAt', value: (c) => c.createdAt, width: 16, display: shortDate },
  { header: 'purchases', value: (c) => c.purchases, width: 9, align: 'right' },
  { header: 'creditsSpent', value: (c) => c.creditsSpent, width: 12, align: 'right' },
  { header: 'commissionEarned', value: (c) => c.commissionEarned, width: 16, align: 'right' },
  { header: 'keysFromReseller', value: (c) => c.keysFromReseller, width: 16, align: 'right' },
  { header: 'lastPurchaseAt', value: (c) => c.lastPurchaseAt, width: 16, display: shortDate },
  // A former customer (moved to another reseller): when they stopped being this reseller's.
  { header: 'customerUntil', value: (c) => c.customerUntil, width: 16, display: shortDate },
];

/** The reseller named (owner), or null: the caller's own. */
async function resellerOf(api: Client, ref: string | undefined): Promise<string | null> {
  return ref === undefined ? null : (await findUserId(api, ref))._id;
}

export function registerResellerCommands(program: Command) {
  const reseller = program
    .command('reseller')
    .description("A reseller's statistics and customers (yours; the owner names any reseller)")
    .addHelpText(
      'after',
      `
Examples:
  $ keypanel reseller stats --days 30
  $ keypanel reseller stats --by product --format csv > by-product.csv
  $ keypanel reseller customers --format csv > customers.csv
  $ keypanel reseller stats --reseller alice --format json   (owner)
`,
    );

  reseller
    .command('stats')
    .description('Credits earned and spent per day (or per product), with the totals and the referral link on stderr')
    .addOption(new Option('--days <days>', 'the period').choices(RESELLER_STATS_PERIODS.map(String)).default('30'))
    .addOption(new Option('--by <what>', 'one row per day or per product').choices(['day', 'product']).default('day'))
    .option('--reseller <id|email|username>', "owner: this reseller's statistics")
    .action(async (options: { days: string; by: 'day' | 'product'; reseller?: string }, command: Command) => {
      const ctx = contextOf(command);
      const api = ctx.api();
      const id = await resellerOf(api, options.reseller);
      const days = Number(options.days);
      const stats: ResellerStats =
        id === null ? await api.get('/api/reseller/stats', { days }) : await api.get(`/api/admin/resellers/${id}/stats`, { days });
      if (ctx.format === 'json') return printRecord('json', [], stats);
      const { reseller: who, totals, allTime } = stats;
      notice(
        `${who.username}: earned ${totals.earned}, spent ${totals.spent} credits in ${stats.from} to ${stats.to}; ` +
          `all time earned ${allTime.earned}, spent ${allTime.spent}, ${allTime.customers} ${allTime.customers === 1 ? 'customer' : 'customers'}` +
          (who.referralPath ? `; referral link ${api.url.replace(/\/$/, '')}${who.referralPath}` : ''),
      );
      if (options.by === 'product') {
        const out = rowWriter(ctx.format, productColumns);
        for (const row of stats.byProduct) await out.write(row);
        await out.end();
        return;
      }
      const out = rowWriter(ctx.format, dayColumns);
      for (const row of stats.daily) await out.write(row);
      await out.end();
    });

  reseller
    .command('customers')
    .description('Every customer, page after page, with their purchases and the commission they earned')
    .option('--search <prefix>', 'username or email prefix')
    .option('--reseller <id|email|username>', "owner: this reseller's customers")
    .action(async (options: { search?: string; reseller?: string }, command: Command) => {
      const ctx = contextOf(command);
      const api = ctx.api();
      const search = options.search?.trim() || undefined;
      if (search && search.length > 100) throw new UsageError('--search must be at most 100 characters');
      const id = await resellerOf(api, options.reseller);
      const out = rowWriter(ctx.format, customerColumns);
      const progress = progressBar('Fetching customers', null, 'customers');
      await writeAllPages(out, progress, async (page) => {
        const query = { page, limit: PAGE_SIZE, search };
        const answer =
          id === null ? await api.get('/api/reseller/customers', query) : await api.get(`/api/admin/resellers/${id}/customers`, query);
        return { items: answer.customers, total: answer.total, totalPages: answer.totalPages };
      });
    });
}
