// Products: the catalogue (owner: every product; others: the active ones), and the owner's
// creation and updates, validated by the same schema as the product form.
import { Option, type Command } from 'commander';
import type { Schemas } from '../../worker/platform/api-client';
import { productInputSchema } from '../../worker/modules/catalog/schemas';
import { contextOf } from '../lib/context';
import { UsageError } from '../lib/errors';
import { findProduct } from '../lib/lookup';
import { printRecord, rowWriter, success, type Column } from '../lib/output';
import { parseWith, wholeNumber } from '../lib/validate';
import { EXPIRY_MODELS, LICENSE_MODELS, PRODUCT_TYPES } from '../../worker/platform/vocabulary';

type Product = Schemas['Product'];

const productColumns: Column<Product>[] = [
  { header: 'id', value: (p) => p._id, width: 24 },
  { header: 'keyTag', value: (p) => p.keyTag, width: 10 },
  { header: 'name', value: (p) => p.name, width: 22 },
  { header: 'type', value: (p) => p.productType, width: 8 },
  { header: 'baseCreditCost', value: (p) => p.baseCreditCost, width: 14, align: 'right' },
  { header: 'creditsPerDay', value: (p) => p.creditsPerDay, width: 13, align: 'right' },
  { header: 'minDays', value: (p) => p.minDays, width: 7, align: 'right' },
  { header: 'maxDays', value: (p) => p.maxDays, width: 7, align: 'right' },
  { header: 'maxActivations', value: (p) => p.maxActivations, width: 14, align: 'right' },
  { header: 'offlineTokenHours', value: (p) => p.offlineTokenHours, width: 17, align: 'right' },
  { header: 'model', value: (p) => p.licenseModel, width: 11 },
  { header: 'expiryModel', value: (p) => p.expiryModel, width: 18 },
  { header: 'leaseMinutes', value: (p) => p.leaseMinutes, width: 12, align: 'right' },
  { header: 'borrowMaxHours', value: (p) => p.borrowMaxHours, width: 14, align: 'right' },
  { header: 'swaps', value: (p) => (p.swapLimit === null ? '' : `${p.swapLimit}/${p.swapWindowDays}d`), width: 8, align: 'right' },
  { header: 'trialDays', value: (p) => p.trialDays, width: 9, align: 'right' },
  { header: 'active', value: (p) => p.isActive, width: 6, colour: (v) => (v ? 'green' : 'red') },
  { header: 'totalGenerated', value: (p) => p.stats.totalGenerated, width: 14, align: 'right' },
  { header: 'totalSold', value: (p) => p.stats.totalSold, width: 9, align: 'right' },
  { header: 'revenue', value: (p) => p.stats.revenue, width: 9, align: 'right' },
  { header: 'features', value: (p) => p.features.join(', '), width: 30 },
];

/** Keys sold and revenue come to the owner only: the columns go when the server left them out. */
const OWNER_ONLY_COLUMNS = new Set(['totalSold', 'revenue']);
const columnsFor = (list: Product[]) =>
  list.some((p) => p.stats.revenue !== undefined) ? productColumns : productColumns.filter((c) => !OWNER_ONLY_COLUMNS.has(c.header));

const productRecord = (p: Product) => productColumns.map((c): [string, ReturnType<typeof c.value>] => [c.header, c.value(p)]);

type ProductOptions = {
  name?: string;
  description?: string;
  keyTag?: string;
  type?: string;
  baseCost?: number;
  perDay?: number;
  minDays?: number;
  maxDays?: number;
  maxActivations?: number;
  offlineTokenHours?: number;
  model?: string;
  expiryModel?: string;
  leaseMinutes?: number;
  borrowMaxHours?: number;
  swapLimit?: number | 'none';
  swapWindowDays?: number;
  trialDays?: number;
  trialUses?: number;
  features?: string;
  entitlements?: string;
  usageAllowance?: number | 'none';
  refillAmount?: number | 'none';
  refillDays?: number | 'none';
  active?: boolean;
};

function productOptions(command: Command, required: boolean) {
  const name = required ? command.requiredOption.bind(command) : command.option.bind(command);
  name('--name <name>', 'product name');
  name('--description <text>', 'description');
  name('--key-tag <tag>', 'key tag: 2-10 letters or digits, the prefix of every key');
  name('--base-cost <credits>', 'base price in credits', wholeNumber('--base-cost', 0));
  return command
    .addOption(new Option('--type <type>', 'product type').choices(PRODUCT_TYPES))
    .option('--per-day <credits>', 'price per day in credits (default 10)', wholeNumber('--per-day', 0))
    .option('--min-days <days>', 'shortest duration (default 1)', wholeNumber('--min-days', 1))
    .option('--max-days <days>', 'longest duration (default 365)', wholeNumber('--max-days', 1))
    .option('--max-activations <n>', 'devices per key (default 1)', wholeNumber('--max-activations', 1))
    .option(
      '--offline-token-hours <hours>',
      "how long an app's offline token lives, 1 to 720 (default 24); a device that leaves a key keeps its slot this long",
      wholeNumber('--offline-token-hours', 1, 720),
    )
    .addOption(new Option('--model <model>', 'license model: fixed devices, or seats leased by heartbeats').choices(LICENSE_MODELS))
    .addOption(
      new Option(
        '--expiry-model <model>',
        'how keys end: time-limited, perpetual (never), or perpetual-fallback (older releases keep working)',
      ).choices(EXPIRY_MODELS),
    )
    .option('--lease-minutes <minutes>', "a floating seat's lease, 1 to 1440 (default 60)", wholeNumber('--lease-minutes', 1, 1440))
    .option(
      '--borrow-max-hours <hours>',
      'how long a floating seat may be borrowed offline, 0 to 720 (default 0: never)',
      wholeNumber('--borrow-max-hours', 0, 720),
    )
    .option('--swap-limit <n|none>', "device removals and swaps a key may make per window, or 'none' for no budget", swapLimit)
    .option('--swap-window-days <days>', "the swap budget's window, 1 to 365 (default 30)", wholeNumber('--swap-window-days', 1, 365))
    .option(
      '--trial-days <days>',
      'a trial of this many days per device, 0 to 365 (default 0: no trial)',
      wholeNumber('--trial-days', 0, 365),
    )
    .option(
      '--trial-uses <n>',
      'uses a trial key of a metered product carries, at most --usage-allowance (default 0: none); they never refill',
      wholeNumber('--trial-uses', 0, 1_000_000_000),
    )
    .option('--features <list>', 'comma-separated features')
    .option('--entitlements <list>', 'comma-separated lowercase entitlement names every key has, like pro,export-pdf')
    .option('--usage-allowance <n|none>', "uses each key starts with, or 'none' (not metered)", orNone('--usage-allowance', 0))
    .option('--refill-amount <n|none>', "uses a key is refilled to each period, or 'none' (no refill)", orNone('--refill-amount', 1))
    .option('--refill-days <n|none>', "the refill period in days, 1 to 365, or 'none'", orNone('--refill-days', 1, 365))
    .option('--active', 'offer the product (the default for a new one)')
    .option('--inactive', 'stop offering the product');
}

/** The options as the API's product body; only the ones given, so an update keeps the rest. */
function productFields(options: ProductOptions & { inactive?: boolean }) {
  if (options.active && options.inactive) throw new UsageError('Give --active or --inactive, not both');
  const fields: Record<string, unknown> = {
    name: options.name,
    description: options.description,
    keyTag: options.keyTag,
    productType: options.type,
    baseCreditCost: options.baseCost,
    creditsPerDay: options.perDay,
    minDays: options.minDays,
    maxDays: options.maxDays,
    maxActivations: options.maxActivations,
    offlineTokenHours: options.offlineTokenHours,
    licenseModel: options.model,
    expiryModel: options.expiryModel,
    leaseMinutes: options.leaseMinutes,
    borrowMaxHours: options.borrowMaxHours,
    swapLimit: options.swapLimit === 'none' ? null : options.swapLimit,
    swapWindowDays: options.swapWindowDays,
    trialDays: options.trialDays,
    trialUsageAllowance: options.trialUses,
    features: options.features,
    entitlements: options.entitlements,
    usageAllowance: noneAsNull(options.usageAllowance),
    usageRefillAmount: noneAsNull(options.refillAmount),
    usageRefillDays: noneAsNull(options.refillDays),
    isActive: options.active ? true : options.inactive ? false : undefined,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

/** A whole number in range, or 'none'. */
const orNone =
  (name: string, min: number, max = 1_000_000_000) =>
  (text: string): number | 'none' =>
    text.trim().toLowerCase() === 'none' ? 'none' : wholeNumber(name, min, max)(text);
const noneAsNull = (v: number | 'none' | undefined) => (v === 'none' ? null : v);

/** --swap-limit: a whole number 0 to 100, or 'none' (no budget). */
function swapLimit(text: string): number | 'none' {
  if (text.trim().toLowerCase() === 'none') return 'none';
  return wholeNumber('--swap-limit', 0, 100)(text);
}

export function registerProductsCommands(program: Command) {
  const products = program
    .command('products')
    .description('List, create and update products')
    .addHelpText(
      'after',
      `
Examples:
  $ keypanel products list
  $ keypanel products create --name "Photo Pro" --description "Photo editor" --key-tag PHOTO --base-cost 50 --per-day 5
  $ keypanel products update PHOTO --max-activations 3 --features "Export,Layers,RAW"
  $ keypanel products update PHOTO --offline-token-hours 72
  $ keypanel products update PHOTO --model floating --max-activations 5 --lease-minutes 15 --borrow-max-hours 72
  $ keypanel products update PHOTO --swap-limit 3 --swap-window-days 30 --trial-days 14
  $ keypanel products update PHOTO --inactive
`,
    );

  products
    .command('list')
    .description('List products (owner: all of them; others: the active ones)')
    .addHelpText('after', '\nExample:\n  $ keypanel products list --format csv\n')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const list = await ctx.api().get('/api/products');
      const out = rowWriter(ctx.format, columnsFor(list));
      for (const product of list) await out.write(product);
      await out.end();
    });

  productOptions(products.command('create').description('Create a product (owner)'), true)
    .addHelpText(
      'after',
      '\nExample:\n  $ keypanel products create --name "Photo Pro" --description "Photo editor" --key-tag PHOTO --base-cost 50 --per-day 5 --max-days 365\n',
    )
    .action(async (options: ProductOptions & { inactive?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const body = parseWith(productInputSchema, productFields(options));
      const product = await ctx.api().post('/api/products', body);
      await printRecord(ctx.format, productRecord(product), product);
      success(`Created ${product.name} (${product.keyTag}).`);
    });

  productOptions(
    products
      .command('update')
      .description('Change a product (owner); options not given keep their values')
      .argument('<id|keyTag>', 'the product'),
    false,
  )
    .addHelpText(
      'after',
      '\nExamples:\n  $ keypanel products update PHOTO --per-day 4\n  $ keypanel products update 6650f1c2a1b2c3d4e5f60718 --inactive\n',
    )
    .action(async (ref: string, options: ProductOptions & { inactive?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const changes = productFields(options);
      if (Object.keys(changes).length === 0)
        throw new UsageError('Nothing to update: give at least one option, such as --name or --inactive');
      const api = ctx.api();
      const current = await findProduct(api, ref);
      // The API replaces the whole product, so the current values fill in what was not given.
      const body = parseWith(productInputSchema, {
        name: current.name,
        description: current.description,
        keyTag: current.keyTag,
        productType: current.productType,
        baseCreditCost: current.baseCreditCost,
        creditsPerDay: current.creditsPerDay,
        minDays: current.minDays,
        maxDays: current.maxDays,
        maxActivations: current.maxActivations,
        offlineTokenHours: current.offlineTokenHours,
        licenseModel: current.licenseModel,
        expiryModel: current.expiryModel,
        leaseMinutes: current.leaseMinutes,
        borrowMaxHours: current.borrowMaxHours,
        swapLimit: current.swapLimit,
        swapWindowDays: current.swapWindowDays,
        trialDays: current.trialDays,
        isActive: current.isActive,
        features: current.features,
        entitlements: current.entitlements,
        usageAllowance: current.usageAllowance,
        usageRefillAmount: current.usageRefillAmount,
        usageRefillDays: current.usageRefillDays,
        trialUsageAllowance: current.trialUsageAllowance,
        ...changes,
      });
      const product = await api.put(`/api/products/${current._id}`, body);
      await printRecord(ctx.format, productRecord(product), product);
      success(`Updated ${product.name} (${product.keyTag}).`);
    });
}
