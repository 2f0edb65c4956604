// Card top-ups (owner): every payment, page after page, as a table, CSV or JSON.
import { Option, type Command } from 'commander';
import type { Schemas } from '../../worker/platform/api-client';
import { contextOf } from '../lib/context';
import { UsageError } from '../lib/errors';
import { rowWriter, shortDate, type Column } from '../lib/output';
import { progressBar, writeAllPages } from '../lib/progress';
import { PAYMENT_STATUSES } from '../../worker/platform/vocabulary';

const PAGE_SIZE = 100;

const paymentColumns: Column<Schemas['Payment']>[] = [
  { header: 'id', value: (p) => p._id, width: 30 },
  { header: 'username', value: (p) => p.user?.username ?? null, width: 18 },
  { header: 'amount', value: (p) => p.amount.toFixed(2), width: 9, align: 'right' },
  {
    header: 'status',
    value: (p) => p.status,
    width: 9,
    colour: (v) => (v === 'paid' ? 'green' : v === 'refunded' || v === 'failed' ? 'red' : undefined),
  },
  { header: 'refunded', value: (p) => p.refunded.toFixed(2), width: 9, align: 'right' },
  { header: 'owed', value: (p) => p.refundOwed.toFixed(2), width: 8, align: 'right', colour: (v) => (v !== '0.00' ? 'red' : undefined) },
  { header: 'disputed', value: (p) => p.disputed, width: 8, colour: (v) => (v ? 'red' : undefined) },
  { header: 'createdAt', value: (p) => p.createdAt, width: 16, display: shortDate },
  { header: 'paidAt', value: (p) => p.paidAt, width: 16, display: shortDate },
];

export function registerPaymentsCommands(program: Command) {
  const payments = program.command('payments').description('Card top-ups through Stripe Checkout (owner)');
  payments
    .command('list')
    .description('List every card payment, newest first, page after page')
    .addOption(new Option('--status <status>', 'only this status').choices(PAYMENT_STATUSES))
    .option('--user <username>', "only this customer's payments")
    .addHelpText(
      'after',
      '\nExamples:\n  $ keypanel payments list --status refunded\n  $ keypanel payments list --user alice --format csv > alice-payments.csv\n  $ keypanel payments list --format json\n',
    )
    .action(async (options: { status?: (typeof PAYMENT_STATUSES)[number]; user?: string }, command: Command) => {
      const ctx = contextOf(command);
      const api = ctx.api();
      const user = options.user?.trim() || undefined;
      if (user && user.length > 30) throw new UsageError('--user must be at most 30 characters');
      const out = rowWriter(ctx.format, paymentColumns, { json: (p) => p });
      const progress = progressBar('Fetching payments', null, 'payments');
      await writeAllPages(out, progress, async (page) => {
        const answer = await api.get('/api/admin/payments', { page, limit: PAGE_SIZE, status: options.status, user });
        return { items: answer.payments, total: answer.total, totalPages: answer.totalPages };
      });
    });
}
