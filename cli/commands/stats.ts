// The figures of the admin Overview (owner: the whole system; reseller: their own), or a plain
// user's own dashboard figures.
import type { Command } from 'commander';
import type { Schemas } from '../../worker/platform/api-client';
import { contextOf } from '../lib/context';
import { ApiError } from '../lib/errors';
import { printRecord } from '../lib/output';

export function registerStatsCommand(program: Command) {
  program
    .command('stats')
    .description('Show the statistics of the admin overview (a plain user: their own key figures)')
    .addHelpText('after', '\nExamples:\n  $ keypanel stats\n  $ keypanel stats --format json | jq .keysByStatus\n')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const api = ctx.api();
      let stats: Schemas['AdminStats'];
      try {
        stats = await api.get('/api/admin/stats');
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 403)) throw err;
        const own = await api.get('/api/users/stats');
        return printRecord(ctx.format, Object.entries(own), own);
      }
      await printRecord(
        ctx.format,
        [
          ['totalUsers', stats.totalUsers],
          ['totalKeys', stats.totalKeys],
          ['totalProducts', stats.totalProducts],
          ['totalRevenue', stats.totalRevenue],
          ...Object.entries(stats.usersByRole).map(([role, n]): [string, number] => [`users.${role}`, n]),
          ...Object.entries(stats.keysByStatus).map(([status, n]): [string, number] => [`keys.${status}`, n]),
        ],
        stats,
      );
    });
}
