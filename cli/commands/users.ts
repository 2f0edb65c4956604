// User management: the list (owner: everyone; reseller: active customers), and the owner's
// creation, top-ups and deactivation.
import { Option, type Command } from 'commander';
import { addFundsSchema, createUserSchema } from '../../worker/modules/accounts/schemas/admin-users';
import type { Schemas } from '../../worker/platform/api-client';
import { contextOf } from '../lib/context';
import { UsageError } from '../lib/errors';
import { findUserId } from '../lib/lookup';
import { printRecord, rowWriter, shortDate, success, type Column } from '../lib/output';
import { progressBar, writeAllPages } from '../lib/progress';
import { askSecret, closeInput, withStepUp } from '../lib/prompts';
import { decimalNumber, parseWith, wholeNumber } from '../lib/validate';
import { ROLES } from '../../worker/platform/vocabulary';

const PAGE_SIZE = 100;

type User = Schemas['User'];
type Listed = User | Schemas['UserSummary'];
const full = (u: Listed): u is User => 'credits' in u;

const userColumns: Column<Listed>[] = [
  { header: 'id', value: (u) => u._id, width: 24 },
  { header: 'username', value: (u) => u.username, width: 18 },
  { header: 'email', value: (u) => u.email, width: 28 },
  { header: 'role', value: (u) => u.role, width: 8, colour: (v) => (v === 'owner' ? 'cyan' : v === 'reseller' ? 'blue' : undefined) },
  { header: 'credits', value: (u) => (full(u) ? u.credits : null), width: 9, align: 'right' },
  { header: 'balance', value: (u) => (full(u) ? u.balance.toFixed(2) : null), width: 10, align: 'right' },
  { header: 'active', value: (u) => (full(u) ? u.isActive : null), width: 6, colour: (v) => (v === false ? 'red' : undefined) },
  { header: 'createdAt', value: (u) => (full(u) ? u.createdAt : null), width: 16, display: shortDate },
  { header: 'lastLogin', value: (u) => (full(u) ? u.lastLogin : null), width: 16, display: shortDate },
];

const userRecord = (u: User): Array<[string, string | number | boolean | null]> => [
  ['id', u._id],
  ['username', u.username],
  ['email', u.email],
  ['role', u.role],
  ['credits', u.credits],
  ['balance', u.balance.toFixed(2)],
  ['active', u.isActive],
];

export function registerUsersCommands(program: Command) {
  const users = program
    .command('users')
    .description('List, create, credit and deactivate users')
    .addHelpText(
      'after',
      `
A user is named by id, email or username.

Examples:
  $ keypanel users list --role reseller
  $ keypanel users create --username alice --email alice@example.com --credits 500
  $ keypanel users credit alice@example.com --credits 250
  $ keypanel users credit alice --balance 19.99
  $ keypanel users deactivate alice
`,
    );

  users
    .command('list')
    .description('List every user, page after page (reseller: active customers, names only)')
    .option('--search <prefix>', 'username or email prefix')
    .addOption(new Option('--role <role>', 'only this role').choices(ROLES))
    .addHelpText(
      'after',
      '\nExamples:\n  $ keypanel users list --search ali\n  $ keypanel users list --role user --format csv > users.csv\n',
    )
    .action(async (options: { search?: string; role?: (typeof ROLES)[number] }, command: Command) => {
      const ctx = contextOf(command);
      const api = ctx.api();
      const search = options.search?.trim() || undefined;
      if (search && search.length > 100) throw new UsageError('--search must be at most 100 characters');
      const out = rowWriter(ctx.format, userColumns);
      const progress = progressBar('Fetching users', null, 'users');
      await writeAllPages(out, progress, async (page) => {
        const answer = await api.get('/api/admin/users', {
          page,
          limit: PAGE_SIZE,
          search,
          role: options.role,
        });
        return { items: answer.users, total: answer.total, totalPages: answer.totalPages };
      });
    });

  users
    .command('create')
    .description('Create a user (owner); the password is asked for without echo, or read from stdin')
    .requiredOption('--username <name>', 'username (3-30 letters, digits, dots, dashes, underscores)')
    .requiredOption('--email <email>', 'email address')
    .addOption(new Option('--role <role>', 'role').choices(ROLES).default('user'))
    .option('--credits <n>', 'opening credits', wholeNumber('--credits', 0))
    .option('--balance <usd>', 'opening USD balance', decimalNumber('--balance'))
    .option('--inactive', 'create the account deactivated')
    .addHelpText(
      'after',
      `
Examples:
  $ keypanel users create --username alice --email alice@example.com --role reseller --credits 1000
  $ printf '%s\\n' "$NEW_PASSWORD" | keypanel users create --username bob --email bob@example.com
`,
    )
    .action(
      async (
        options: { username: string; email: string; role: string; credits?: number; balance?: number; inactive?: boolean },
        command: Command,
      ) => {
        const ctx = contextOf(command);
        const draft = {
          username: options.username,
          email: options.email,
          role: options.role,
          credits: options.credits,
          balance: options.balance,
          isActive: !options.inactive,
        };
        // Everything but the password first, so a typo is caught before anyone types a password.
        parseWith(createUserSchema, { ...draft, password: 'checked-later' });
        const password = await askSecret(`Password for ${options.username}: `, 'the new password');
        closeInput();
        const body = parseWith(createUserSchema, { ...draft, password });
        // Making a reseller or an owner needs proof that it is you (KEYPANEL_PASSWORD, or asked).
        const { user } = await withStepUp((proof) => ctx.api().post('/api/admin/users', { ...body, ...proof }));
        await printRecord(ctx.format, userRecord(user), user);
        success(`Created ${user.role} ${user.username}.`);
      },
    );

  users
    .command('credit')
    .description("Add credits or USD balance to a user's account (owner)")
    .argument('<user>', 'id, email or username')
    .option('--credits <n>', 'credits to add', wholeNumber('--credits', 1))
    .option('--balance <usd>', 'US dollars to add to the balance', decimalNumber('--balance'))
    .addHelpText(
      'after',
      '\nExamples:\n  $ keypanel users credit alice@example.com --credits 500\n  $ keypanel users credit alice --balance 25.00\n',
    )
    .action(async (ref: string, options: { credits?: number; balance?: number }, command: Command) => {
      const ctx = contextOf(command);
      if ((options.credits === undefined) === (options.balance === undefined))
        throw new UsageError('Give exactly one of --credits N or --balance USD');
      const body = parseWith(
        addFundsSchema,
        options.credits !== undefined ? { amount: options.credits, type: 'credits' } : { amount: options.balance, type: 'balance' },
      );
      const api = ctx.api();
      const target = await findUserId(api, ref);
      const answer = await api.post(`/api/admin/users/${target._id}/balance`, body);
      await printRecord(ctx.format, userRecord(answer.user), answer.user);
      success(answer.message ?? 'Funds added.');
    });

  users
    .command('deactivate')
    .description('Deactivate a user (owner): their sessions and API tokens stop working')
    .argument('<user>', 'id, email or username')
    .addHelpText('after', '\nExample:\n  $ keypanel users deactivate alice@example.com\n')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const api = ctx.api();
      const target = await findUserId(api, ref);
      const { user } = await api.put(`/api/admin/users/${target._id}`, { isActive: false });
      await printRecord(ctx.format, userRecord(user), user);
      success(`Deactivated ${user.username}.`);
    });
}
