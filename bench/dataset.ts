// The benchmark's database at one of two sizes (`--scale`): 200k (10,000 users of whom 50
// resellers, 200 products, 200,000 keys, 100,000 activations) or 2m, ten times the shop (100,000
// users of whom 500 resellers, 2,000,000 keys, 1,000,000 activations); plus what each scenario
// draws from: keys with their devices, fresh keys, customers with credits to spend, a customer
// with 500 keys, a reseller, and signed-in sessions (their rows in D1, made as sign-in makes them,
// which every signed-in round trip checks).
import { createDb } from '../worker/platform/db/client';
import { createSession } from '../worker/modules/accounts/sessions';
import type { Runtime } from './runtime';
import { DAY_MS } from '../worker/platform/vocabulary';
import { generateShop, writeShop, type KeyRow, type ProductRow, type Shop, type UserRow } from '../scripts/demo-shop/generator';

export const SCALES = {
  // A larger shop has more resellers, each selling about as much: a reseller's statistics read a
  // few rows for each product they have ever sold, so fifty resellers selling ten times as much would
  // each have sold nearly the whole catalog, and the two sizes would not measure alike resellers.
  '200k': { users: 10_000, resellers: 50, products: 200, keys: 200_000, activations: 100_000 },
  '2m': { users: 100_000, resellers: 500, products: 200, keys: 2_000_000, activations: 1_000_000 },
} as const;
export type ScaleName = keyof typeof SCALES;
export type Scale = (typeof SCALES)[ScaleName];
export const COLLECTOR_KEYS = 500;
/** Customers who buy during the run: each has credits for far more than the run can spend. */
const SHOPPERS = 2_000;
const SHOPPER_CREDITS = 10_000_000;
/** Sessions per account that many connections share (the per-session limiter, CALL_LIMITER, is unlimited in the benchmark: runtime.ts). */
const SESSIONS_PER_ACCOUNT = 100;
/** A validation writes `lastUsed` when the device's last one is older than this (LAST_USED_WRITE_MS). */
const STALE_LAST_USED_MS = 60 * 60 * 1000;

export type DevicePair = { key: string; device: string; activationId: string };

export type BenchData = {
  shop: Shop;
  seededAt: number;
  /** Any key, for the floor. */
  anyKeys: string[];
  /** Valid keys with a device that checked in at seed time: validating them reads only. */
  recentDevices: DevicePair[];
  /** Valid keys with a device last seen an hour ago: validating them also writes `lastUsed`. */
  staleDevices: DevicePair[];
  /** Generated keys of active products, never activated: each activation run takes new ones. */
  freshKeys: KeyRow[];
  activeProducts: ProductRow[];
  shopperTokens: string[];
  collector: UserRow;
  collectorTokens: string[];
  ownerTokens: string[];
  customers: UserRow[];
  /** Sessions of the reseller who sold the most products, for a reseller's own statistics. */
  resellerTokens: string[];
};

export async function seedBenchDatabase(runtime: Runtime, SCALE: Scale): Promise<BenchData> {
  const seededAt = Date.now();
  const accounts = [
    { username: 'bench-owner', email: 'owner@bench.test', role: 'owner' as const, passwordHash: null, credits: 0, balanceCents: 0 },
    {
      username: 'bench-collector',
      email: 'collector@bench.test',
      role: 'user' as const,
      passwordHash: null,
      credits: 1_000,
      balanceCents: 0,
      keys: COLLECTOR_KEYS,
    },
  ];
  const shop = generateShop({
    now: seededAt,
    historyDays: 90,
    seed: 20_260_401,
    products: SCALE.products,
    resellers: SCALE.resellers,
    customers: SCALE.users - SCALE.resellers - accounts.length,
    keys: SCALE.keys,
    activations: SCALE.activations,
    accounts,
    // Nobody signs in with a password during the run; sessions are made directly (below).
    passwordHash: null,
    availableShare: 0.3,
    activatedGeneratedShare: 0.05,
    revokedShare: 0.03,
    customerCredits: (i, random) => (i <= SHOPPERS ? SHOPPER_CREDITS : Math.floor(random * 5_000)),
    usernames: (i) => `customer${String(i).padStart(5, '0')}`,
  });

  // When each valid device last checked in: half at seed time, half one hour before.
  const keyById = new Map(shop.keys.map((k) => [k.id, k]));
  const recentDevices: DevicePair[] = [];
  const staleDevices: DevicePair[] = [];
  for (const a of shop.activations) {
    const key = keyById.get(a.key_id)!;
    if (key.status !== 'used' || key.expires_at === null || key.expires_at < seededAt + DAY_MS) continue;
    const pair = { key: key.key, device: a.device_fingerprint, activationId: a.id };
    if (recentDevices.length <= staleDevices.length) {
      a.last_used = seededAt;
      recentDevices.push(pair);
    } else {
      a.last_used = seededAt - STALE_LAST_USED_MS;
      staleDevices.push(pair);
    }
  }
  await writeShop(runtime.db, shop);

  const activeProducts = shop.products.filter((p) => p.is_active === 1);
  const activeIds = new Set(activeProducts.map((p) => p.id));
  const owner = shop.byUsername.get('bench-owner')!;
  const collector = shop.byUsername.get('bench-collector')!;
  const customers = shop.users.filter((u) => u.role === 'user');
  const shoppers = customers.filter((u) => u.credits === SHOPPER_CREDITS);
  const db = createDb(runtime.db);
  const sessionsFor = async (users: UserRow[]) => {
    const tokens: string[] = [];
    // A few at a time: each is a D1 write through Miniflare's proxy.
    for (let i = 0; i < users.length; i += 50) {
      const made = await Promise.all(
        users.slice(i, i + 50).map(async (u) => {
          const opened = await createSession(
            db,
            runtime.secrets.JWT_SECRET,
            { id: u.id, role: u.role },
            {
              ipAddress: '127.0.0.1',
              userAgent: 'keypanel-bench',
              location: null,
            },
          );
          if (!opened) throw new Error(`bench: no session for ${u.username}`);
          return opened.token;
        }),
      );
      tokens.push(...made);
    }
    return tokens;
  };
  return {
    shop,
    seededAt,
    anyKeys: shop.keys.map((k) => k.key),
    recentDevices,
    staleDevices,
    freshKeys: shop.keys.filter((k) => k.status === 'available' && activeIds.has(k.product_id)),
    activeProducts,
    shopperTokens: await sessionsFor(shoppers),
    collector,
    collectorTokens: await sessionsFor(Array<UserRow>(SESSIONS_PER_ACCOUNT).fill(collector)),
    ownerTokens: await sessionsFor(Array<UserRow>(SESSIONS_PER_ACCOUNT).fill(owner)),
    customers,
    resellerTokens: await sessionsFor(Array<UserRow>(SESSIONS_PER_ACCOUNT).fill(busiestReseller(shop))),
  };
}

/**
 * The reseller who has sold the most products to customers (then the most keys): their statistics
 * read the most, about five rows a product they have ever sold. The catalog bounds it at both sizes,
 * whereas the one who sold the most keys is whichever happened to spread them over more products.
 */
function busiestReseller(shop: Shop): UserRow {
  const products = new Map<string, Set<string>>();
  const sold = new Map<string, number>();
  for (const k of shop.keys) {
    if (k.generation_method !== 'reseller' || !k.paid_by) continue;
    products.set(k.paid_by, (products.get(k.paid_by) ?? new Set()).add(k.product_id));
    sold.set(k.paid_by, (sold.get(k.paid_by) ?? 0) + 1);
  }
  const resellers = shop.users.filter((u) => u.role === 'reseller');
  if (!resellers.length) throw new Error('bench: the shop has no reseller');
  const reach = (r: UserRow) => [products.get(r.id)?.size ?? 0, sold.get(r.id) ?? 0];
  return resellers.reduce((best, r) => {
    const [a, b] = [reach(r), reach(best)];
    return a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]) ? r : best;
  });
}
