// `keypanel`: the command-line client of KeyPanel's HTTP API. Each command group lives in
// commands/; this file builds the program and turns every outcome into an exit code
// (0 success, 1 an error from the API or the network, 2 bad usage).
import { Command, CommanderError, Option } from 'commander';
import { version } from '../package.json';
import { registerAuthCommands } from './commands/auth';
import { registerExportCommand } from './commands/export';
import { registerImportCommand } from './commands/import';
import { registerKeysCommands } from './commands/keys';
import { registerLicenseCommands } from './commands/license';
import { registerPaymentsCommands } from './commands/payments';
import { registerProductsCommands } from './commands/products';
import { registerPurchaseCommand } from './commands/purchase';
import { registerResellerCommands } from './commands/reseller';
import { registerSettingsCommands } from './commands/settings';
import { registerStatsCommand } from './commands/stats';
import { registerUsersCommands } from './commands/users';
import { registerWebhooksCommands } from './commands/webhooks';
import { registerMailCommands } from './commands/mail';
import { CliError, EXIT_ERROR, EXIT_OK, EXIT_USAGE, UsageError } from './lib/errors';
import { FORMATS, paint, plain } from './lib/output';

function buildProgram(): Command {
  const program = new Command('keypanel')
    .description('KeyPanel from the command line: license keys, users, products, settings and the licensing API')
    .version(version, '-v, --version')
    .addOption(new Option('-f, --format <format>', 'output format (default: table on a terminal, else json)').choices(FORMATS))
    .option('-q, --quiet', 'no messages or progress on stderr (errors still show)')
    .option('--no-color', 'no colours (as NO_COLOR does)')
    .option('--insecure', 'allow a plain http:// server other than this machine (passwords and tokens travel unencrypted)')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Data goes to stdout, messages and progress to stderr. KEYPANEL_URL and KEYPANEL_TOKEN
override the stored session (for scripts; an API token from \`keypanel token create\`).
Exit codes: 0 success, 1 an error from the API or the network, 2 bad usage.

Examples:
  $ keypanel login --url http://localhost:8787 --email owner@example.com
  $ keypanel keys generate --product APP --quantity 1000 --format csv > keys.csv
  $ KEYPANEL_TOKEN=kp_... keypanel keys export --status available --output available.csv
  $ keypanel license validate --key APP-XXXX-XXXX-XXXX --fingerprint device-0001
`,
    );
  registerAuthCommands(program);
  registerKeysCommands(program);
  registerUsersCommands(program);
  registerProductsCommands(program);
  registerPurchaseCommand(program);
  registerSettingsCommands(program);
  registerStatsCommand(program);
  registerResellerCommands(program);
  registerLicenseCommands(program);
  registerPaymentsCommands(program);
  registerWebhooksCommands(program);
  registerMailCommands(program);
  registerExportCommand(program);
  registerImportCommand(program);
  // Every command (and sub-command) reports usage errors by throwing, so they exit 2 below.
  const everyCommand = (command: Command): Command[] => [command, ...command.commands.flatMap(everyCommand)];
  for (const command of everyCommand(program)) command.exitOverride();
  return program;
}

function fail(message: string, hint: string | undefined, code: number): never {
  process.stderr.write(`${paint(process.stderr, 'red', 'Error:')} ${plain(message)}\n`);
  if (hint) process.stderr.write(`${plain(hint)}\n`);
  process.exit(code);
}

async function main() {
  // `keypanel ... | head` closes the pipe early: that is the reader's choice, not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(EXIT_OK);
    throw err;
  });
  const program = buildProgram();
  try {
    await program.parseAsync(process.argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has printed its message (or the help) already; asked-for help and --version exit 0.
      process.exit(err.exitCode === 0 ? EXIT_OK : EXIT_USAGE);
    }
    if (err instanceof UsageError) fail(err.message, '(run with --help for usage)', EXIT_USAGE);
    if (err instanceof CliError) fail(err.message, err.hint, EXIT_ERROR);
    // An answer shaped unlike KeyPanel's, or a bug in the CLI itself: the message, and the stack only when asked for.
    const hint = process.env.KEYPANEL_DEBUG
      ? (err as Error)?.stack
      : 'If the server at KEYPANEL_URL is not a KeyPanel server of this version, its answers cannot be read. KEYPANEL_DEBUG=1 shows the details.';
    fail(`Unexpected error: ${(err as Error)?.message ?? String(err)}`, hint, EXIT_ERROR);
  }
}

void main();
