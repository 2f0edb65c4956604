// Signing in and out, who am I, and API tokens for scripts.
import type { Command } from 'commander';
import { z } from 'zod';
import { createApiTokenSchema } from '../../worker/modules/accounts/schemas/api-tokens';
import type { Schemas } from '../../worker/platform/api-client';
import { emailSchema } from '../../worker/modules/accounts/schemas/auth';
import { configPath, DEFAULT_URL, parseBaseUrl, readConfig, writeConfig } from '../lib/config';
import { contextOf } from '../lib/context';
import { ApiError, UsageError } from '../lib/errors';
import { createClient, notKeyPanel } from '../lib/http';
import { keyToPin } from '../lib/pinned-key';
import { printRecord, rowWriter, shortDate, success, warn, type Column } from '../lib/output';
import { ask, askSecret, closeInput, withStepUp } from '../lib/prompts';
import { oneOf, parseWith } from '../lib/validate';
import { ROLES, type Role } from '../../worker/platform/vocabulary';

const loginAnswer = z.union([
  z.object({ requires2FA: z.literal(true), challenge: z.string() }),
  z.object({ token: z.string().min(1), user: z.object({ username: z.string(), email: z.string(), role: z.string() }).loose() }),
]);

/** A sign-in answer, or a clear error when whatever answered is not a KeyPanel server. */
function readLoginAnswer(url: string, answer: unknown): Schemas['LoginResponse'] {
  const parsed = loginAnswer.safeParse(answer);
  if (!parsed.success) throw notKeyPanel(url, null, 'a sign-in answer this CLI cannot read');
  return parsed.data as Schemas['LoginResponse'];
}

export function registerAuthCommands(program: Command) {
  program
    .command('login')
    .description('Sign in and keep the session in ~/.config/keypanel/config.json (mode 0600)')
    .option('--url <url>', `KeyPanel address (default: KEYPANEL_URL, the last one used, or ${DEFAULT_URL})`)
    .option('--email <email>', 'account email (asked for when missing)')
    .option('--code <code>', 'two-factor code or recovery token, when the account asks for one (asked for when missing)')
    .option('--repin', "trust the server's new licensing public key (after a deliberate key rotation)")
    .addHelpText(
      'after',
      `
The password is asked for without echo. In a script, pipe it in instead (one line; with
two-factor on, the code or a recovery token on the next line). Sign-in pins the server's
licensing public key for \`license verify-token\`; a server whose key changed is refused
before the password is sent, unless --repin.

Examples:
  $ keypanel login --url https://keys.example.com --email owner@example.com
  $ printf '%s\\n' "$PASSWORD" | keypanel login --email owner@example.com
`,
    )
    .action(async (options: { url?: string; email?: string; code?: string; repin?: boolean }, command: Command) => {
      contextOf(command);
      const config = readConfig();
      const url = parseBaseUrl(options.url ?? process.env.KEYPANEL_URL ?? config.url ?? DEFAULT_URL, '--url');
      const email = parseWith(emailSchema, options.email ?? (await ask('Email: ', 'the email')), options.email ? '--email: ' : '');
      // Before the password is asked for: plain http:// is refused, and so is a server whose key changed.
      const client = createClient({ url, token: undefined, tokenSource: undefined }, 'public');
      const publicKey = await keyToPin(client, config, options.repin === true);
      const password = await askSecret('Password: ', 'the password');
      if (!password) throw new UsageError('Password is required');
      let answer = readLoginAnswer(url, await client.post('/api/auth/login', { email, password, rememberMe: true }));
      if ('requires2FA' in answer) {
        const second = (options.code ?? (await ask('Two-factor code (or a recovery token): ', 'a two-factor code'))).trim();
        if (!second) throw new UsageError('A two-factor code or a recovery token is required for this account');
        const proof = /^[\d ]+$/.test(second) ? { code: second } : { recoveryToken: second };
        answer = readLoginAnswer(url, await client.post('/api/auth/login/2fa', { challenge: answer.challenge, ...proof }));
      }
      closeInput();
      if ('requires2FA' in answer) throw new ApiError('The server asked for a second sign-in step again', 401, undefined);
      const { user } = answer;
      const publicKeys = publicKey ? { ...config.publicKeys, [url]: publicKey } : config.publicKeys;
      writeConfig({
        ...config,
        url,
        token: answer.token,
        user: { username: user.username, email: user.email, role: user.role },
        publicKeys,
      });
      success(`Signed in to ${url} as ${user.username} (${user.role}). Session saved in ${configPath()}.`);
      if (!publicKey) warn('The server offers no licensing public key, so none is pinned: `license verify-token` needs --public-key.');
      if (process.env.KEYPANEL_TOKEN) warn('KEYPANEL_TOKEN is set, and it takes precedence over this session until you unset it.');
    });

  program
    .command('logout')
    .description('End the stored session, on the server and in the config file')
    .addHelpText('after', '\nExample:\n  $ keypanel logout\n')
    .action(async (_options: unknown, command: Command) => {
      contextOf(command);
      const config = readConfig();
      if (!config.token) {
        success('You were not signed in.');
        return;
      }
      const url = parseBaseUrl(config.url ?? DEFAULT_URL, 'The configured URL');
      try {
        await createClient({ url, token: config.token, tokenSource: 'config' }, 'signedIn').post('/api/auth/logout');
      } catch (err) {
        // An expired session is already over; anything else is worth a word, but the local sign-out still happens.
        if (!(err instanceof ApiError && err.status === 401))
          warn(`The server could not end the session (${(err as Error).message}); it ends on its own when it expires.`);
      }
      const { token: _token, user: _user, ...rest } = config;
      writeConfig(rest);
      success(`Signed out of ${url}.`);
    });

  program
    .command('whoami')
    .description('Show the account the CLI acts as')
    .addHelpText('after', '\nExamples:\n  $ keypanel whoami\n  $ KEYPANEL_TOKEN=kp_... keypanel whoami --format json\n')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const api = ctx.api();
      const user = await api.get('/api/users/profile');
      await printRecord(
        ctx.format,
        [
          ['url', api.url],
          ['username', user.username],
          ['email', user.email],
          ['role', user.role],
          ['credits', user.credits],
          ['balance', user.balance.toFixed(2)],
          ['twoFactorEnabled', user.twoFactorEnabled],
        ],
        { url: api.url, user },
      );
    });

  const token = program
    .command('token')
    .description('API tokens for scripts (owners and resellers; managed from a signed-in session)')
    .addHelpText(
      'after',
      `
A token is shown once. Give it to a script as KEYPANEL_TOKEN; it acts with its role (at most
yours), and a read-only token may only read. Creating one asks for your password (or a two-factor
code); a script sets KEYPANEL_PASSWORD instead.

Examples:
  $ keypanel token create --name nightly-export --role reseller --read-only
  $ export KEYPANEL_TOKEN=$(KEYPANEL_PASSWORD=... keypanel token create --name ci --role owner --format json | jq -r .token)
  $ keypanel token list
  $ keypanel token revoke 6650f1c2a1b2c3d4e5f60718
`,
    );

  token
    .command('create')
    .description('Create an API token and print it (shown only once)')
    .requiredOption('--name <name>', 'what the token is for')
    .requiredOption('--role <role>', `role the token acts with, at most yours (${ROLES.join(', ')})`, oneOf('--role', ROLES))
    .option('--read-only', 'the token may only read (GET requests)', false)
    .addHelpText('after', '\nExample:\n  $ keypanel token create --name nightly-export --role reseller --read-only\n')
    .action(async (options: { name: string; role: Role; readOnly: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const body = parseWith(createApiTokenSchema, { name: options.name, role: options.role, readOnly: options.readOnly });
      const created = await withStepUp((proof) => ctx.api().post('/api/users/api-tokens', { ...body, ...proof }));
      const { apiToken } = created;
      await printRecord(
        ctx.format,
        [
          ['token', created.token],
          ['id', apiToken._id],
          ['name', apiToken.name],
          ['role', apiToken.role],
          ['readOnly', apiToken.readOnly],
        ],
        { token: created.token, apiToken },
      );
      success('API token created. Copy it now: it is shown only once.');
    });

  token
    .command('list')
    .description('List your API tokens with their last use')
    .addHelpText('after', '\nExample:\n  $ keypanel token list --format csv\n')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const { tokens } = await ctx.api().get('/api/users/api-tokens');
      const out = rowWriter(ctx.format, tokenColumns);
      for (const t of tokens) await out.write(t);
      await out.end();
    });

  token
    .command('revoke')
    .description('Revoke an API token: it stops working at once')
    .argument('<id>', 'the token id (from `keypanel token list`)')
    .addHelpText('after', '\nExample:\n  $ keypanel token revoke 6650f1c2a1b2c3d4e5f60718\n')
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      if (!/^[0-9a-f]{24}$/.test(id))
        throw new UsageError(`"${id}" is not an API token id (24 hexadecimal characters, from \`keypanel token list\`)`);
      const answer = await ctx.api().delete(`/api/users/api-tokens/${id}`);
      success(answer.message);
    });
}

const tokenColumns: Column<Schemas['ApiToken']>[] = [
  { header: 'id', value: (t) => t._id, width: 24 },
  { header: 'name', value: (t) => t.name, width: 24 },
  { header: 'role', value: (t) => t.role, width: 8 },
  { header: 'readOnly', value: (t) => t.readOnly, width: 8 },
  { header: 'createdAt', value: (t) => t.createdAt, width: 16, display: shortDate },
  { header: 'lastUsedAt', value: (t) => t.lastUsedAt, width: 16, display: (v) => (v ? shortDate(v) : 'never') },
];
