// The owner's settings document: read it whole or one field, change fields by name. The API
// replaces the whole document, so `set` reads it, changes the named fields and validates the
// result with the server's schema before sending it.
import type { Command } from 'commander';
import { settingsSchema, type Settings } from '../../worker/schemas/settings';
import { contextOf } from '../lib/context';
import { UsageError } from '../lib/errors';
import { printRecord, success, writeOut } from '../lib/output';
import { parseWith } from '../lib/validate';

const NAMES = Object.keys(settingsSchema.shape) as Array<keyof Settings>;

function checkName(name: string): keyof Settings {
  if (!(NAMES as string[]).includes(name)) throw new UsageError(`Unknown setting "${name}". Settings: ${NAMES.join(', ')}`);
  return name as keyof Settings;
}

/** `true`/`false` for the switches, a number for the rest; the schema checks the bounds. */
function parseValue(name: keyof Settings, raw: string): boolean | number {
  const kind = settingsSchema.shape[name].def.type;
  if (kind === 'boolean') {
    if (raw === 'true' || raw === 'false') return raw === 'true';
    throw new UsageError(`${name} must be true or false (got "${raw}")`);
  }
  if (raw.trim() === '' || !Number.isFinite(Number(raw))) throw new UsageError(`${name} must be a number (got "${raw}")`);
  return Number(raw);
}

export function registerSettingsCommands(program: Command) {
  const settings = program
    .command('settings')
    .description("Read and change the system settings (owner)")
    .addHelpText(
      'after',
      `
Settings: ${NAMES.join(', ')}

Examples:
  $ keypanel settings get
  $ keypanel settings get maxKeysPerGeneration
  $ keypanel settings set maxKeysPerGeneration=500 registrationEnabled=false
`,
    );

  settings
    .command('get')
    .description('Show every setting, or the value of one')
    .argument('[name]', 'one setting')
    .addHelpText('after', '\nExamples:\n  $ keypanel settings get\n  $ keypanel settings get usdToCreditRate\n')
    .action(async (name: string | undefined, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const field = name === undefined ? undefined : checkName(name);
      const current = await ctx.api().get<Settings>('/api/settings');
      if (field === undefined) return printRecord(ctx.format, NAMES.map((n) => [n, current[n]]), current);
      // One value: bare, so `$(keypanel settings get usdToCreditRate)` is just the number.
      if (ctx.format === 'json') return writeOut(`${JSON.stringify(current[field])}\n`);
      if (ctx.format === 'csv') return printRecord('csv', [[field, current[field]]]);
      return writeOut(`${current[field]}\n`);
    });

  settings
    .command('set')
    .description('Change settings by name (the others keep their values)')
    .argument('<name=value...>', 'one or more settings')
    .addHelpText('after', '\nExamples:\n  $ keypanel settings set maintenanceMode=true\n  $ keypanel settings set usdToCreditRate=12 defaultDailyDiscount=20\n')
    .action(async (pairs: string[], _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const changes: Partial<Record<keyof Settings, boolean | number>> = {};
      for (const pair of pairs) {
        const at = pair.indexOf('=');
        if (at <= 0) throw new UsageError(`Expected name=value, got "${pair}"`);
        const name = checkName(pair.slice(0, at).trim());
        changes[name] = parseValue(name, pair.slice(at + 1).trim());
      }
      // Bounds checked before any request (the current values are already valid).
      for (const [name, value] of Object.entries(changes)) parseWith(settingsSchema.shape[name as keyof Settings], value, `${name}: `);
      const api = ctx.api();
      const current = await api.get<Settings>('/api/settings');
      const next = parseWith(settingsSchema, { ...current, ...changes });
      const saved = await api.put<Settings>('/api/settings', next);
      await printRecord(ctx.format, NAMES.map((n) => [n, saved[n]]), saved);
      success(`Saved ${Object.keys(changes).join(', ')}.`);
    });
}
