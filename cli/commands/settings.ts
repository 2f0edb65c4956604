// The owner's settings document: read it whole or one field, change fields by name. The API
// replaces the whole document, so `set` reads it, changes the named fields and validates the
// result with the server's schema before sending it.
import type { Command } from 'commander';
import type { Schemas } from '../../worker/platform/api-client';
import {
  DEFAULT_KEY_TRANSFER_SETTINGS,
  DEFAULT_PAYMENT_SETTINGS,
  DEFAULT_RENEWAL_SETTINGS,
  settingsSchema,
} from '../../worker/modules/settings/schemas';
import { contextOf } from '../lib/context';
import { UsageError } from '../lib/errors';
import { printRecord, success, writeOut } from '../lib/output';
import { parseWith, plainNumber } from '../lib/validate';

type Settings = Schemas['Settings'];
/** The settings that are objects in the document; here each of their fields has a dotted name (`payments.minTopUpUsd`). */
const GROUPS = {
  payments: DEFAULT_PAYMENT_SETTINGS,
  keyTransfers: DEFAULT_KEY_TRANSFER_SETTINGS,
  renewals: DEFAULT_RENEWAL_SETTINGS,
} as const;
type Group = keyof typeof GROUPS;
type TopName = Exclude<keyof Settings, Group>;
type GroupName = { [G in Group]: `${G}.${keyof Settings[G] & string}` }[Group];
type Name = TopName | GroupName;
type Value = boolean | number | number[];

const isGroup = (name: string): name is Group => name in GROUPS;
const TOP_NAMES = (Object.keys(settingsSchema.shape) as Array<keyof Settings>).filter((n): n is TopName => !isGroup(n));
const GROUP_NAMES = (Object.keys(GROUPS) as Group[]).flatMap((g) => Object.keys(GROUPS[g]).map((n) => `${g}.${n}` as GroupName));
const NAMES: Name[] = [...TOP_NAMES, ...GROUP_NAMES];

const groupOf = (name: Name): [Group, string] | null => {
  const [group, field] = name.split('.');
  return field !== undefined && isGroup(group) ? [group, field] : null;
};

function valueOf(settings: Settings, name: Name): string | number | boolean {
  const grouped = groupOf(name);
  if (!grouped) {
    const top = settings[name as TopName];
    return Array.isArray(top) ? top.join(',') : top;
  }
  const value = (settings[grouped[0]] as Record<string, Value>)[grouped[1]];
  return Array.isArray(value) ? value.join(',') : value;
}
const rowsOf = (settings: Settings): Array<[string, string | number | boolean]> => NAMES.map((n) => [n, valueOf(settings, n)]);

function checkName(name: string): Name {
  if (!(NAMES as string[]).includes(name)) throw new UsageError(`Unknown setting "${name}". Settings: ${NAMES.join(', ')}`);
  return name as Name;
}

/** `true`/`false` for the switches, a number for the rest (comma-separated for the quick amounts); the schema checks the bounds. */
/** Lists of numbers, written comma-separated: the quick top-up amounts, the reminder days. */
const LISTS: string[] = ['payments.quickTopUpAmounts', 'expiryReminderDays'];

function parseValue(name: Name, raw: string): Value {
  if (LISTS.includes(name)) {
    const amounts = raw
      .split(',')
      .map((a) => a.trim())
      .filter((a) => a !== '')
      .map((a) => plainNumber(a, 2));
    if (amounts.some((a) => a === null)) throw new UsageError(`${name} must be amounts separated by commas (got "${raw}")`);
    return amounts as number[];
  }
  const grouped = groupOf(name);
  const kind = grouped
    ? typeof (GROUPS[grouped[0]] as Record<string, unknown>)[grouped[1]]
    : settingsSchema.shape[name as TopName].def.type;
  if (kind === 'boolean') {
    if (raw === 'true' || raw === 'false') return raw === 'true';
    throw new UsageError(`${name} must be true or false (got "${raw}")`);
  }
  // Digits with a fraction of any length (the setting's schema judges how many decimals it takes), as the API reads amounts.
  const value = plainNumber(raw, 15);
  if (value === null) throw new UsageError(`${name} must be a number (got "${raw}")`);
  return value;
}

export function registerSettingsCommands(program: Command) {
  const settings = program
    .command('settings')
    .description('Read and change the system settings (owner)')
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
      const current = await ctx.api().get('/api/settings');
      if (field === undefined) return printRecord(ctx.format, rowsOf(current), current);
      // One value: bare, so `$(keypanel settings get usdToCreditRate)` is just the number.
      if (ctx.format === 'json') {
        const inGroup = groupOf(field);
        const value = inGroup ? (current[inGroup[0]] as Record<string, Value>)[inGroup[1]] : current[field as TopName];
        return writeOut(`${JSON.stringify(value)}\n`);
      }
      if (ctx.format === 'csv') return printRecord('csv', [[field, valueOf(current, field)]]);
      return writeOut(`${valueOf(current, field)}\n`);
    });

  settings
    .command('set')
    .description('Change settings by name (the others keep their values)')
    .argument('<name=value...>', 'one or more settings')
    .addHelpText(
      'after',
      '\nExamples:\n  $ keypanel settings set maintenanceMode=true\n  $ keypanel settings set usdToCreditRate=12 defaultDailyDiscount=20\n',
    )
    .action(async (pairs: string[], _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const changes: Partial<Record<Name, Value>> = {};
      for (const pair of pairs) {
        const at = pair.indexOf('=');
        if (at <= 0) throw new UsageError(`Expected name=value, got "${pair}"`);
        const name = checkName(pair.slice(0, at).trim());
        changes[name] = parseValue(name, pair.slice(at + 1));
      }
      // Bounds checked before any request (the current values are already valid).
      const top: Record<string, Value> = {};
      const grouped: Record<Group, Record<string, Value>> = { payments: {}, keyTransfers: {}, renewals: {} };
      for (const [name, value] of Object.entries(changes) as Array<[Name, Value]>) {
        const inGroup = groupOf(name);
        if (inGroup) grouped[inGroup[0]][inGroup[1]] = value;
        else top[name] = parseWith(settingsSchema.shape[name as TopName], value, `${name}: `);
      }
      const api = ctx.api();
      const current = await api.get('/api/settings');
      const next = parseWith(settingsSchema, {
        ...current,
        ...top,
        payments: { ...current.payments, ...grouped.payments },
        keyTransfers: { ...current.keyTransfers, ...grouped.keyTransfers },
        renewals: { ...current.renewals, ...grouped.renewals },
      });
      const saved = await api.put('/api/settings', next);
      // What changed, as saved: not the whole document (`settings get` shows that).
      const changed = (Object.keys(changes) as Name[]).map((name): [string, string | number | boolean] => [name, valueOf(saved, name)]);
      await printRecord(ctx.format, changed);
      success(`Saved ${Object.keys(changes).join(', ')}.`);
    });
}
