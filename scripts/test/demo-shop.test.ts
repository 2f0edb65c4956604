// The demo shop's generator (scripts/demo-shop/generator.ts), which `npm run seed` writes at demo
// size and the benchmark at scale: the history it makes must be one the app could have made.
import { describe, expect, it } from 'vitest';
import { generateShop } from '../demo-shop/generator';

const shop = generateShop({
  now: Date.UTC(2026, 10, 1),
  historyDays: 30,
  seed: 3,
  products: 6,
  customers: 20,
  resellers: 2,
  keys: 200,
  activations: 80,
  accounts: [{ username: 'named', email: 'named@demo.test', role: 'user', passwordHash: null, credits: 500, balanceCents: 1_000, keys: 5 }],
  passwordHash: null,
  availableShare: 0.25,
  activatedGeneratedShare: 0.05,
  revokedShare: 0.04,
  customerCredits: (_, random) => Math.floor(random * 1_000),
  usernames: (i) => `customer${i}`,
});

describe('the demo shop generator', () => {
  it('makes the counts asked for, the named account with its balances and keys', () => {
    expect([shop.products.length, shop.keys.length, shop.activations.length]).toEqual([6, 200, 80]);
    const named = shop.byUsername.get('named')!;
    expect([named.credits, named.balance_cents]).toEqual([500, 1_000]);
    expect(shop.keys.filter((k) => k.purchased_by === named.id).length).toBeGreaterThanOrEqual(5);
  });

  it('leaves a ledger that reconciles with every balance', () => {
    const sums = new Map<string, { credits: number; cents: number }>();
    for (const row of shop.ledger) {
      const sum = sums.get(row.user_id) ?? { credits: 0, cents: 0 };
      sums.set(row.user_id, { credits: sum.credits + row.credits_delta, cents: sum.cents + row.usd_cents_delta });
    }
    const off = shop.users.filter((u) => {
      const sum = sums.get(u.id) ?? { credits: 0, cents: 0 };
      return sum.credits !== u.credits || sum.cents !== u.balance_cents;
    });
    expect(off.map((u) => u.username)).toEqual([]);
  });

  it('verifies every address and gives each reseller a referral code of its own (issue 47)', () => {
    expect(shop.users.filter((u) => !(u.email_verified_at > 0)).map((u) => u.username)).toEqual([]);
    const resellers = shop.users.filter((u) => u.role === 'reseller');
    expect(resellers).toHaveLength(2);
    const codes = resellers.map((u) => u.referral_code);
    for (const code of codes) expect(code).toMatch(/^[0-9A-F]{10}$/);
    expect(new Set(codes).size).toBe(codes.length);
    expect(shop.users.filter((u) => u.role !== 'reseller' && u.referral_code !== null)).toEqual([]);
  });
});
