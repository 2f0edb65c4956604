// Mail: the owner's view of every mail and its state (`keypanel mail status`), and, on a local
// server, the local mailbox (`keypanel mail list`): what `npm start` sent, links included.
import { Option, type Command } from 'commander';
import type { Schemas } from '../../worker/platform/api-client';
import { MAIL_STATES } from '../../worker/platform/vocabulary';
import { contextOf } from '../lib/context';
import { ApiError, CliError } from '../lib/errors';
import { rowWriter, shortDate, type Column } from '../lib/output';

const mailColumns: Column<Schemas['MailEntry']>[] = [
  { header: 'created', value: (m) => m.createdAt, display: shortDate, width: 16 },
  { header: 'kind', value: (m) => m.kind, width: 16 },
  { header: 'to', value: (m) => m.to ?? '', width: 26 },
  { header: 'state', value: (m) => m.state, width: 8 },
  { header: 'attempts', value: (m) => m.attempts, width: 8, align: 'right' },
  { header: 'status', value: (m) => m.providerStatus ?? '', width: 6, align: 'right' },
  { header: 'subject', value: (m) => m.subject ?? '', width: 40 },
];

type LocalMail = Schemas['LocalMailbox']['mails'][number];
const localColumns: Column<LocalMail>[] = [
  { header: 'sent', value: (m) => m.sentAt, display: shortDate, width: 16 },
  { header: 'to', value: (m) => m.to, width: 28 },
  { header: 'subject', value: (m) => m.subject, width: 44 },
];

export function registerMailCommands(program: Command) {
  const mail = program.command('mail').description("Mail: each mail's state (owner), and a local server's mailbox");

  mail
    .command('status')
    .description('List mails, newest first, with their state and the mail API’s last status (owner)')
    .addOption(new Option('--state <state>', 'only mails in this state').choices(MAIL_STATES))
    .option('--limit <n>', 'how many, at most 100', '25')
    .addHelpText(
      'after',
      "\nExamples:\n  $ keypanel mail status --state failed\n  $ keypanel mail status --format json | jq '.[] | .providerStatus'\n",
    )
    .action(async (options: { state?: (typeof MAIL_STATES)[number]; limit: string }, command: Command) => {
      const ctx = contextOf(command);
      if (!/^\d+$/.test(options.limit) || Number(options.limit) < 1 || Number(options.limit) > 100) {
        throw new CliError(`--limit must be a whole number from 1 to 100 (got "${options.limit}")`);
      }
      const { mails } = await ctx
        .api()
        .get('/api/admin/mails', { limit: Number(options.limit), ...(options.state ? { state: options.state } : {}) });
      const out = rowWriter(ctx.format, mailColumns);
      for (const row of mails) await out.write(row);
      await out.end();
    });

  mail
    .command('list')
    .description('List the local mailbox of a server run by `npm start`, newest first, with each mail’s text (links included)')
    .addHelpText(
      'after',
      '\nA deployed KeyPanel has no local mailbox: its mail goes through the mail API.\n\nExample:\n  $ keypanel mail list\n',
    )
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      let mails: LocalMail[];
      try {
        ({ mails } = await ctx.api().get('/api/dev/mailbox'));
      } catch (err) {
        if (err instanceof ApiError && err.status === 404)
          throw new CliError('This server has no local mailbox: it is not a local server started by `npm start`.');
        throw err;
      }
      const out = rowWriter(ctx.format, localColumns, { details: (m) => m.text.split('\n') });
      for (const row of mails) await out.write(row);
      await out.end();
    });
}
