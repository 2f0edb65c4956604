// Per-isolate caches: what a Worker isolate keeps in memory across the requests it serves. Every
// one is declared in ISOLATE_CACHES below (what it holds, for how long, how it is invalidated) and
// made with `isolateCache(name)`, so this file is the whole list. An isolate may serve many
// requests or one, and each isolate has its own copy: a cache here may only save work, never be the
// record (docs/architecture.md, "Per-isolate caches").

type CacheSpec = {
  /** What an entry is, and its key. */
  holds: string;
  /** How long an entry lives (ms); absent: until evicted or the isolate ends. */
  ttlMs?: number;
  /** Most entries; past it the oldest written goes. */
  max: number;
  /** How an entry stops being used when what it copies changes. */
  invalidation: string;
};

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

export const ISOLATE_CACHES = {
  settings: {
    holds: 'the settings document read from KV, per KV binding (modules/settings/store.ts)',
    ttlMs: 5 * SECOND,
    max: 1,
    invalidation: 'written through by a save or reset in this isolate; other isolates see a change within the TTL',
  },
  'recent-products': {
    holds: 'products this isolate sold or generated keys for, by id (modules/catalog/products.ts)',
    ttlMs: MINUTE,
    max: 1_000,
    invalidation:
      'the purchase or generation batch requires the product unchanged and active, so a stale copy fails the batch, which drops it and reads again',
  },
  'verified-session-tokens': {
    holds: 'session JWTs whose signature was verified, with their claims, by token (modules/accounts/sessions.ts)',
    max: 10_000,
    invalidation:
      'each entry lives until its token expires; only the signature is remembered (every round trip checks the session row in D1); a new JWT_SECRET misses',
  },
  'session-last-touched': {
    holds: "when this isolate last wrote a session's lastActive, by session id (modules/accounts/sessions.ts)",
    ttlMs: 5 * MINUTE,
    max: 10_000,
    invalidation: 'an entry only delays the next touch; the UPDATE itself skips a row touched within the interval by another isolate',
  },
  'openapi-document': {
    holds: 'the OpenAPI document generated from the app, by app (modules/meta/openapi.ts)',
    max: 2,
    invalidation: 'the routes are fixed for the life of the code: a deployment is a new isolate',
  },
  'jwt-secret-keys': {
    holds: 'the HMAC key imported from JWT_SECRET, by secret (modules/accounts/sessions.ts)',
    max: 4,
    invalidation: 'keyed by the secret itself: a new secret is imported afresh',
  },
  'secret-box-keys': {
    holds: 'the AES-GCM key derived from TOTP_ENCRYPTION_KEY, by key material (platform/secret-box.ts)',
    max: 4,
    invalidation: 'keyed by the material itself',
  },
  'license-signing-keys': {
    holds: 'the Ed25519 keys imported from LICENSE_SIGNING_KEY, by its JWK text (platform/signing.ts)',
    max: 1,
    invalidation: 'keyed by the JWK text itself',
  },
  'stripe-clients': {
    holds: 'the Stripe SDK client, by secret key and API base (modules/billing/stripe.ts)',
    max: 4,
    invalidation: 'keyed by the configuration itself',
  },
  'drizzle-instances': {
    holds: 'the drizzle instance with the relational schema, by D1 binding (platform/db/client.ts)',
    max: 8,
    invalidation: 'none needed: it holds no data, only the binding',
  },
  'compiled-sql': {
    holds: 'the SQL text of each compiled statement, by builder and shape (platform/db/compiled.ts)',
    max: 1_000,
    invalidation: 'none needed: the text follows from the code',
  },
  'api-token-grants': {
    holds: 'what an API token grants (account, roles, read-only), by the token hash (modules/accounts/api-tokens.ts)',
    ttlMs: MINUTE,
    max: 10_000,
    invalidation:
      'every round trip of the call checks the token row and the account in D1, so a stale entry is refused there; the TTL bounds the memory',
  },
  'api-token-last-touched': {
    holds: "when this isolate last wrote each API token's lastUsedAt, by token id (modules/accounts/api-tokens.ts)",
    ttlMs: 5 * MINUTE,
    max: 10_000,
    invalidation: "an expired entry means a write is due; the write's own guard keeps concurrent isolates to one",
  },
  'webhook-subscriptions': {
    holds: 'the webhook event types some enabled endpoint subscribes to, by D1 binding (platform/db/session.ts)',
    ttlMs: MINUTE,
    max: 8,
    invalidation:
      "a write batch that leaves out a type's outbox statement names the type to its guard, which aborts the batch if an endpoint subscribes to it now; the batch is then run again with every outbox statement and the entry read again",
  },
  'touch-batches': {
    holds:
      "the open batch of last-seen writes (devices' lastUsed, API tokens' lastUsed, sessions' lastActive), by D1 binding (platform/touches.ts)",
    max: 8,
    invalidation: 'deleted when its write starts, about 200 ms after it opened',
  },
} as const satisfies Record<string, CacheSpec>;

export type IsolateCacheName = keyof typeof ISOLATE_CACHES;

/** A bounded map whose entries expire: the one shape of every per-isolate cache. */
export class IsolateCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();

  constructor(
    readonly name: string,
    private readonly spec: CacheSpec,
  ) {}

  /** The live entry, or undefined (an expired one is dropped). */
  get(key: K, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until > now) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Stores an entry for `ttlMs` (the cache's own TTL unless given), evicting the oldest when full. */
  set(key: K, value: V, now = Date.now(), ttlMs: number | undefined = this.spec.ttlMs): V {
    this.entries.delete(key);
    if (this.entries.size >= this.spec.max) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, { value, until: ttlMs === undefined ? Infinity : now + ttlMs });
    return value;
  }

  /** The live entry, or `make()`'s value stored as a new one. */
  getOrSet(key: K, make: () => V, now = Date.now()): V {
    const hit = this.get(key, now);
    return hit !== undefined ? hit : this.set(key, make(), now);
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

const live = new Map<string, IsolateCache<unknown, unknown>>();

/** The cache declared under `name` in ISOLATE_CACHES (one per name: a module evaluated again replaces it). */
export function isolateCache<K, V>(name: IsolateCacheName): IsolateCache<K, V> {
  const cache = new IsolateCache<K, V>(name, ISOLATE_CACHES[name]);
  live.set(name, cache);
  return cache;
}

/** The caches made so far (those of the modules loaded), by name. */
export const liveIsolateCaches = (): ReadonlyMap<string, IsolateCache<unknown, unknown>> => live;

/** Empties every cache (tests that change what the caches copy behind the code's back). */
export function clearIsolateCaches(): void {
  for (const cache of live.values()) cache.clear();
}
