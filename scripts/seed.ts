// `npm run seed`: a living demo shop in the local database that `npm start` serves: products of each
// type, customers, resellers, keys in every status bought over the past weeks, device activations
// and a ledger that reconciles, so the dashboard, the admin panel and the analytics have something
// to show. It fills an empty shop only, and says so when the shop already has products.
// Options: --persist-to DIR (default .wrangler/state, the folder `npm start` uses).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DAY_MS } from '../worker/platform/vocabulary';
import { generateShop, writeShop, type NamedAccount } from './demo-shop/generator';
import { hashPassword } from '../worker/platform/password';
import { applyMigrations, DEFAULT_STATE_DIR, ROOT } from './local';

/** Local demo accounts: their passwords are printed and in the README, so never use them anywhere real. */
export const DEMO_ACCOUNTS = [
  { username: 'demo-owner', email: 'owner@demo.test', password: 'Lantern-Harbor-31', role: 'owner', credits: 0, balanceCents: 0 },
  {
    username: 'demo-reseller',
    email: 'reseller@demo.test',
    password: 'Copper-Meadow-52',
    role: 'reseller',
    credits: 4_000,
    balanceCents: 25_000,
  },
  {
    username: 'demo-customer',
    email: 'customer@demo.test',
    password: 'Velvet-Orchard-74',
    role: 'user',
    credits: 1_250,
    balanceCents: 4_000,
    keys: 14,
  },
] as const;

const FIRST_NAMES = [
  'maria',
  'liam',
  'sofia',
  'noah',
  'amara',
  'kenji',
  'lucia',
  'omar',
  'freya',
  'diego',
  'ines',
  'tomas',
  'yara',
  'felix',
  'nadia',
  'hugo',
];

const { values: args } = parseArgs({ options: { 'persist-to': { type: 'string' } } });
const stateDir = path.resolve(args['persist-to'] ?? DEFAULT_STATE_DIR);
const step = (text: string) => console.log(`\u25B8 ${text}`);

const shown = stateDir.startsWith(ROOT) ? path.relative(ROOT, stateDir) : stateDir;
step(`Applying migrations to the local D1 in ${shown}`);
applyMigrations(stateDir);

const { getPlatformProxy } = await import('wrangler');
const proxy = await getPlatformProxy<{ DB: D1Database }>({
  configPath: path.join(ROOT, 'wrangler.toml'),
  persist: { path: path.join(stateDir, 'v3') },
  remoteBindings: false,
});
let exitCode = 0;
try {
  const d1 = proxy.env.DB;
  const existing = await d1
    .prepare(
      'SELECT (SELECT count(*) FROM products) AS products, (SELECT count(*) FROM license_keys) AS keys, (SELECT count(*) FROM users WHERE email = ?1) AS seeded, (SELECT count(*) FROM users WHERE role = ?2) AS owners',
    )
    .bind(DEMO_ACCOUNTS[0].email, 'owner')
    .first<{ products: number; keys: number; seeded: number; owners: number }>();
  if (existing!.seeded > 0) {
    console.log('\n  The demo shop is already there; nothing to do. Delete .wrangler/state for a fresh one.\n');
  } else if (existing!.products > 0 || existing!.keys > 0) {
    console.error(
      `\n  This database already has a shop (${existing!.products} products, ${existing!.keys} keys): the demo fills an empty shop only.`,
    );
    console.error('  Delete .wrangler/state (or use --persist-to DIR) to seed a fresh one.\n');
    exitCode = 1;
  } else {
    // An owner made by `npm start` stays the only owner; the demo owner joins only an ownerless shop.
    const wanted = DEMO_ACCOUNTS.filter((a) => a.role !== 'owner' || existing!.owners === 0);
    step('Hashing the demo accounts\u2019 passwords');
    const accounts: NamedAccount[] = await Promise.all(
      wanted.map(async (a) => ({
        username: a.username,
        email: a.email,
        role: a.role,
        passwordHash: await hashPassword(a.password),
        credits: a.credits,
        balanceCents: a.balanceCents,
        keys: 'keys' in a ? a.keys : 0,
      })),
    );
    const now = Date.now();
    const shop = generateShop({
      now,
      historyDays: 42,
      seed: 7,
      products: 12,
      customers: 40,
      resellers: 2,
      keys: 640,
      activations: 320,
      accounts,
      // Generated customers have no password: they are the shop's history, not accounts to use.
      passwordHash: null,
      availableShare: 0.25,
      activatedGeneratedShare: 0.05,
      revokedShare: 0.04,
      customerCredits: (_, random) => Math.floor(random * 2_000),
      usernames: (i) => `${FIRST_NAMES[i % FIRST_NAMES.length]}${String(i).padStart(2, '0')}`,
    });

    // The demo customer's own keys show every state a card can have.
    const customer = shop.byUsername.get('demo-customer')!;
    const own = shop.keys.filter((k) => k.purchased_by === customer.id);
    // One bought long enough ago that it runs out in three days (its purchase moves with it).
    const soon = own.filter((k) => k.status === 'used' && k.duration >= 7).sort((a, b) => a.duration - b.duration)[0];
    if (soon) {
      const boughtAt = now + 3 * DAY_MS - soon.duration * DAY_MS;
      Object.assign(soon, { created_at: boughtAt, purchased_at: boughtAt, expires_at: now + 3 * DAY_MS });
      for (const row of shop.ledger) if (row.reference === soon.id) row.created_at = boughtAt;
      for (const a of shop.activations) {
        if (a.key_id !== soon.id) continue;
        Object.assign(a, { activated_at: boughtAt + DAY_MS, last_used: now - DAY_MS });
        soon.first_used_at = boughtAt + DAY_MS;
      }
    }
    const revoked = own.find((k) => k.status === 'used' && k !== soon);
    if (revoked) Object.assign(revoked, { status: 'revoked', revoke_reason: 'Refund requested', revoked_at: now - DAY_MS });

    step('Writing the demo shop');
    const counts = await writeShop(d1, shop);
    const byStatus = shop.keys.reduce<Record<string, number>>((m, k) => ({ ...m, [k.status]: (m[k.status] ?? 0) + 1 }), {});
    console.log(
      `  ${counts.products} products, ${counts.users} accounts, ${counts.license_keys} keys (${Object.entries(byStatus)
        .map(([s, n]) => `${n} ${s}`)
        .join(', ')}), ${counts.activations} activations, ${counts.ledger} ledger rows over 42 days`,
    );
    console.log('\n  Demo accounts (local only):');
    for (const a of wanted) console.log(`    ${a.role.padEnd(8)}  ${a.email.padEnd(20)}  ${a.password}`);
    if (wanted.length < DEMO_ACCOUNTS.length) console.log('    (the owner is the one `npm start` created)');
    console.log('\n  `npm start` serves it at http://localhost:8787\n');
  }
} finally {
  await proxy.dispose();
}
process.exit(exitCode);
