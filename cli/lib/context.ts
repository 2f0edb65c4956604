// What every command needs from the global options and the environment: the output format and a
// client for the configured server.
import type { Command } from 'commander';
import { resolveConnection } from './config';
import { allowInsecure, createClient, type Client } from './http';
import { resolveFormat, setQuiet, type Format } from './output';

export type GlobalOptions = { format?: string; quiet?: boolean; color?: boolean; insecure?: boolean };

export type CommandContext = {
  format: Format;
  /** The signed-in API: fails with the login hint when there is no token. */
  api(): Client;
  /** Sign-in and the licensing API: no token sent. */
  publicApi(): Client;
};

export function contextOf(command: Command, defaultFormat?: Format): CommandContext {
  const options = command.optsWithGlobals<GlobalOptions>();
  setQuiet(options.quiet === true);
  allowInsecure(options.insecure === true);
  // `--no-color` is NO_COLOR for this run.
  if (options.color === false) process.env.NO_COLOR = '1';
  const format = resolveFormat(options.format, process.stdout, defaultFormat);
  return {
    format,
    api: () => createClient(resolveConnection(), 'signedIn'),
    publicApi: () => createClient(resolveConnection(), 'public'),
  };
}
