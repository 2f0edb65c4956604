// The licensing client an app creates once: activate, validate and deactivate against the
// licensing API (and, for floating licenses, heartbeats on a timer it manages, borrowing; device
// swaps and trials), every answer verified against the pinned key before anything in it is
// believed, and the last good offline token kept to answer from while the server cannot be reached.
import { post, type FetchLike, type RawAnswer, type RetryOptions, type Transport } from './http.js';
import { memoryStore, type TokenStore } from './store.js';
import {
  SERVER_CODES,
  VALID_CODES,
  type BoundDevice,
  type LicenseInfo,
  type LicenseResult,
  type OfflineToken,
  type PublicKeyInput,
  type ServerCode,
  type Usage,
  type VerifyKey,
} from './types.js';
import { importPublicKey, normalizeKey, TokenError, verifyOfflineToken, verifySignature } from './verify.js';
import { clockBehindDetail, trustedClock } from './trusted-time.js';
import { offlineActivation } from './offline.js';

export type LicensingOptions = {
  /** The KeyPanel server, e.g. `https://keys.example.com`. */
  url: string;
  /** The server's licensing public key, shipped inside the app (PEM or JWK): never fetched. */
  publicKey: PublicKeyInput;
  /** Where the last good offline token is kept; memory by default. */
  store?: TokenStore;
  fetch?: FetchLike;
  /** Per attempt (default 10 s). */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** The device's clock (ms); offline tokens are checked against it, or the latest signed time if later (trusted-time.ts). */
  now?: () => number;
  /** How retries wait; tests pass one that does not. */
  sleep?: (ms: number) => Promise<void>;
  /** The timers the heartbeat runs on (setTimeout and clearTimeout by default); tests pass their own. */
  timers?: Timers;
};

export type Timers = { set: (run: () => void, ms: number) => unknown; clear: (handle: unknown) => void };

export type HeartbeatOptions = {
  /** Every heartbeat's result (valid or not), as it comes. */
  onResult?: (result: LicenseResult) => void;
  /** The shortest wait between heartbeats (default 5 s). */
  minIntervalMs?: number;
  /** The wait after an unreachable server or no lease in the answer (default 60 s; sooner while the last lease runs out). */
  retryIntervalMs?: number;
};

export type DeviceInfo = { manufacturer?: string; model?: string; device?: string; cpuAbi?: string; fingerprint?: string };
export type LicenseRequest = {
  key: string;
  fingerprint: string;
  /** Echoed inside the signed answer and checked; a fresh random one by default. Never reuse one. */
  nonce?: string;
};

type Action = 'activate' | 'validate' | 'deactivate' | 'heartbeat' | 'borrow' | 'replace-device' | 'trial' | 'consume';
/** The calls that answer from the kept offline token when the server cannot be reached. */
const OFFLINE_FALLBACK: readonly Action[] = ['activate', 'validate', 'heartbeat', 'borrow'];

type WireUsage = Omit<Usage, 'nextRefillAt'> & { nextRefillAt: string | null };
type WireLicense = Omit<LicenseInfo, 'expiresAt' | 'usage'> & { expiresAt: string | null; usage?: WireUsage | null; token: string | null };
type WireDevice = Omit<BoundDevice, 'lastSeenAt' | 'leaseExpiresAt'> & { lastSeenAt: string | null; leaseExpiresAt: string | null };
type WireAnswer = {
  valid: boolean;
  code: ServerCode;
  detail: string;
  nonce: string | null;
  ts?: string;
  slotFreesAt?: string | null;
  leaseExpiresAt?: string | null;
  borrowedUntil?: string | null;
  nextSwapAt?: string | null;
  devices?: WireDevice[];
  license: WireLicense | null;
};

const isValidCode = (code: string) => (VALID_CODES as readonly string[]).includes(code);

export type Licensing = ReturnType<typeof createLicensing>;

export function createLicensing(options: LicensingOptions) {
  const base = options.url.replace(/\/+$/, '');
  const store = options.store ?? memoryStore();
  const now = options.now ?? Date.now;
  const transport: Transport = {
    fetch: options.fetch ?? ((url, init) => fetch(url, init)),
    timeoutMs: options.timeoutMs ?? 10_000,
    retry: { retries: 3, baseDelayMs: 500, maxDelayMs: 30_000, ...options.retry },
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
  };
  let pinned: Promise<VerifyKey> | null = null;
  const publicKey = () => (pinned ??= importPublicKey(options.publicKey));
  const slot = (req: Pick<LicenseRequest, 'key' | 'fingerprint'>) => `${normalizeKey(req.key)}|${req.fingerprint}`;
  const clock = trustedClock(store, now);

  /** The kept token, verified again; one that no longer holds is dropped (kept while the clock reads behind). */
  async function keptToken(req: LicenseRequest): Promise<OfflineToken | null> {
    const token = await store.get(slot(req));
    if (!token) return null;
    const reading = await clock.read();
    if (reading.behind) return null;
    try {
      return await verifyOfflineToken(await publicKey(), token, { now: reading.now, key: req.key, fingerprint: req.fingerprint });
    } catch (err) {
      if (!(err instanceof TokenError)) throw err;
      await store.delete(slot(req));
      return null;
    }
  }

  /** When no trustworthy answer came: the kept token if it still holds, else why not. */
  async function offline(req: LicenseRequest, why: Pick<LicenseResult, 'code' | 'detail' | 'retryAfter'>): Promise<LicenseResult> {
    // A clock wound back would keep an expired token alive: nothing offline is believed then.
    const reading = await clock.read();
    if (reading.behind)
      return { valid: false, code: 'CLOCK_BEHIND', detail: clockBehindDetail(reading), source: 'none', license: null, offlineToken: null };
    const token = await keptToken(req);
    if (token) {
      return {
        valid: true,
        code: 'VALID',
        detail: `Offline: the last verified token holds until ${token.expiresAt.toISOString()}`,
        source: 'offline',
        license: null,
        offlineToken: token,
      };
    }
    return { valid: false, ...why, source: 'none', license: null, offlineToken: null };
  }

  const forged = (detail: string): LicenseResult => ({
    valid: false,
    code: 'INVALID_SIGNATURE',
    detail,
    source: 'none',
    license: null,
    offlineToken: null,
  });

  async function call(
    action: Action,
    req: LicenseRequest,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ): Promise<LicenseResult> {
    const key = await publicKey();
    // A fresh nonce per call, echoed inside the signed body: an old signed answer replayed does not match.
    const nonce = req.nonce ?? randomNonce();
    // A trial names its product instead of a key: the key comes in the answer.
    const trial = action === 'trial';
    const raw = await post(
      transport,
      `${base}/api/v1/licenses/${action}`,
      {
        ...(trial ? {} : { key: req.key }),
        deviceFingerprint: req.fingerprint,
        nonce,
        ...extra,
      },
      headers,
    );
    const fallback = OFFLINE_FALLBACK.includes(action);
    // No answer, or one that grants nothing (throttled, server down): these need no signature.
    if (!raw || raw.status >= 500) {
      const why = {
        code: 'UNREACHABLE' as const,
        detail: raw ? `The licensing server answered ${raw.status}` : 'The licensing server could not be reached',
      };
      return fallback ? offline(req, why) : { valid: false, ...why, source: 'none', license: null, offlineToken: await keptToken(req) };
    }
    if (raw.status === 429) {
      const why = { code: 'RATE_LIMITED' as const, detail: 'Too many licensing requests', retryAfter: raw.retryAfter };
      return fallback ? offline(req, why) : { valid: false, ...why, source: 'none', license: null, offlineToken: await keptToken(req) };
    }
    // Anything acted upon must carry the server's signature over its exact bytes.
    if (!(await verifySignature(key, raw.bytes, raw.signature))) return forged('The answer is not signed by the pinned public key');
    const body = parse(raw);
    if (raw.status !== 200) {
      const envelope = body as { message?: unknown } | null;
      return {
        valid: false,
        code: 'REJECTED',
        detail: typeof envelope?.message === 'string' ? envelope.message : `HTTP ${raw.status}`,
        source: 'none',
        license: null,
        offlineToken: null,
      };
    }
    const answer = body as WireAnswer | null;
    if (
      !answer ||
      typeof answer !== 'object' ||
      !(SERVER_CODES as readonly string[]).includes(answer.code) ||
      typeof answer.detail !== 'string'
    )
      return forged('The signed answer is not a licensing answer');
    if (answer.nonce !== nonce) return forged('The signed answer is not the answer to this request (nonce)');
    if (answer.license && !trial && answer.license.key !== normalizeKey(req.key))
      return forged('The signed answer is about another license key');
    if (answer.valid !== isValidCode(answer.code)) return forged('The signed answer is not a licensing answer');
    // A trial's answer is about the key it made: from here on, that key is the request's.
    if (trial && answer.license) req = { ...req, key: answer.license.key };

    // The answer's signed time is trusted from now on: a clock wound back behind it is seen offline.
    await clock.see(answer.ts === undefined ? null : Date.parse(answer.ts));
    let offlineToken: OfflineToken | null = null;
    if (action === 'consume') {
      // A debit says nothing about the device's standing: the kept token stays as it is.
      offlineToken = await keptToken(req);
    } else if (isValidCode(answer.code) && answer.license?.token) {
      try {
        const at = Math.max(now(), await clock.latest());
        offlineToken = await verifyOfflineToken(key, answer.license.token, { now: at, key: req.key, fingerprint: req.fingerprint });
      } catch (err) {
        if (!(err instanceof TokenError)) throw err;
        // Signed, but already past its expiry by this device's clock (a clock ahead): nothing to keep.
        if (err.problem !== 'expired') return forged(`The offline token in the answer is not valid: ${err.message}`);
      }
      if (offlineToken) await store.set(slot(req), offlineToken.token);
      else await store.delete(slot(req));
    } else if (!trial || answer.license) {
      // The server said no (or gave no token): nothing kept may answer for this device any more.
      await store.delete(slot(req));
    }
    return {
      valid: isValidCode(answer.code),
      code: answer.code,
      detail: answer.detail,
      source: 'online',
      nonce,
      license: answer.license ? toLicense(answer.license) : null,
      offlineToken,
      ...moment('slotFreesAt', answer.slotFreesAt),
      ...moment('leaseExpiresAt', answer.leaseExpiresAt),
      ...moment('borrowedUntil', answer.borrowedUntil),
      ...moment('nextSwapAt', answer.nextSwapAt),
      ...(answer.devices ? { devices: answer.devices.map(toDevice) } : {}),
    };
  }

  const timers: Timers = options.timers ?? {
    set: (run, ms) => setTimeout(run, ms),
    clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  };

  /**
   * Heartbeats for a floating seat on a timer: each at half of what is left of the lease (at least
   * `minIntervalMs`), again sooner when the server could not be reached. It stops by itself when the
   * server says no (the seat is gone: LEASE_EXPIRED, REVOKED...), and with `stop()`.
   */
  function startHeartbeat(req: LicenseRequest, heartbeatOptions: HeartbeatOptions = {}) {
    const minMs = heartbeatOptions.minIntervalMs ?? 5_000;
    const retryMs = heartbeatOptions.retryIntervalMs ?? 60_000;
    let handle: unknown = null;
    let stopped = false;
    // The last lease the server granted: a retry after a failed beat comes before it runs out.
    let lease: Date | null = null;
    const schedule = (ms: number) => {
      if (!stopped) handle = timers.set(() => void beat(), Math.max(minMs, ms));
    };
    async function beat() {
      if (stopped) return;
      const result = await call('heartbeat', { key: req.key, fingerprint: req.fingerprint });
      heartbeatOptions.onResult?.(result);
      if (result.source === 'online' && !result.valid) {
        stopped = true;
        return;
      }
      if (result.source === 'online' && result.leaseExpiresAt) {
        lease = result.leaseExpiresAt;
        schedule((lease.getTime() - now()) / 2);
      } else {
        schedule(lease ? Math.min(retryMs, (lease.getTime() - now()) / 4) : retryMs);
      }
    }
    void beat();
    return {
      stop: () => {
        stopped = true;
        if (handle !== null) timers.clear(handle);
      },
      get running() {
        return !stopped;
      },
    };
  }

  return {
    /** Takes a device slot (activating the same device again takes none). */
    activate: (req: LicenseRequest & { deviceInfo?: DeviceInfo }) =>
      call('activate', req, req.deviceInfo ? { deviceInfo: req.deviceInfo } : {}),
    /**
     * Asks the server; when it cannot answer, the last good offline token does until it expires.
     * `releaseDate`: this build's release date, so a perpetual-fallback key past its expiry still
     * answers valid (UPDATES_ENDED) for a release dated before the expiry.
     */
    validate: (req: LicenseRequest & { releaseDate?: Date | string }) =>
      call('validate', req, req.releaseDate === undefined ? {} : { releaseDate: releaseDateText(req.releaseDate) }),
    /** Releases the device (a floating one checks its seat in); its kept token is dropped once the server confirms. */
    deactivate: (req: LicenseRequest) => call('deactivate', req),
    /** Renews a floating seat's lease once (`startHeartbeat` keeps it renewed). */
    heartbeat: (req: LicenseRequest) => call('heartbeat', req),
    startHeartbeat,
    /** Borrows a floating seat for offline use for `hours`: the kept token then lives until the borrow ends. */
    borrow: (req: LicenseRequest & { hours: number }) => call('borrow', req, { hours: req.hours }),
    /** This device takes the slot of the key's device `replaceDeviceId` (from a refusal's `devices`), within the swap budget. */
    replaceDevice: (req: LicenseRequest & { replaceDeviceId: string; deviceInfo?: DeviceInfo }) =>
      call('replace-device', req, { replaceDeviceId: req.replaceDeviceId, ...(req.deviceInfo ? { deviceInfo: req.deviceInfo } : {}) }),
    /** Starts this device's trial of the product `keyTag`: the answer's `license.key` is the trial key to use from then on. */
    startTrial: (req: { keyTag: string; fingerprint: string; deviceInfo?: DeviceInfo; nonce?: string }) =>
      call(
        'trial',
        { key: '', fingerprint: req.fingerprint, nonce: req.nonce },
        {
          keyTag: req.keyTag,
          ...(req.deviceInfo ? { deviceInfo: req.deviceInfo } : {}),
        },
      ),
    /**
     * Debits `amount` uses (default 1) from a metered key. `idempotencyKey` makes the debit safe to
     * send again: the same key debits once and answers the same (CONSUMED with the uses left after
     * it); the SDK's own retries reuse it. Pass one you keep to retry across restarts; a fresh random
     * one by default. Out of uses: USAGE_EXHAUSTED, nothing debited.
     */
    consume: (req: LicenseRequest & { amount?: number; idempotencyKey?: string }) =>
      call('consume', req, { amount: req.amount ?? 1 }, { 'Idempotency-Key': req.idempotencyKey ?? randomNonce() }),
    /**
     * Whether the key has entitlement `name`, offline: read from the kept offline token (verified
     * again against the pinned key), so it holds while the server cannot be reached. False when no
     * token is kept or it has expired.
     */
    hasEntitlement: async (req: Pick<LicenseRequest, 'key' | 'fingerprint'>, name: string) =>
      (await keptToken(req))?.entitlements.includes(name) ?? false,
    /** The kept offline token alone, without the network. */
    checkOffline: (req: LicenseRequest) =>
      offline(req, { code: 'UNREACHABLE', detail: 'No offline token is kept for this key and device' }),
    /** Verifies any offline token against the pinned key and the trusted time (throws TokenError with the reason). */
    verifyToken: async (token: string, expect: { key?: string; fingerprint?: string } = {}) => {
      const reading = await clock.read();
      if (reading.behind) throw new TokenError('clock', clockBehindDetail(reading));
      return verifyOfflineToken(await publicKey(), token, { ...expect, now: reading.now });
    },
    /** The latest time the server has signed that this device has seen (ms; 0 when none yet). */
    trustedTime: () => clock.latest(),
    ...offlineActivation({ store, publicKey, clock, slot, now }),
  };
}

function parse(raw: RawAnswer): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(raw.bytes));
  } catch {
    return null;
  }
}

const toLicense = ({ token: _token, usage, ...wire }: WireLicense): LicenseInfo => ({
  ...wire,
  entitlements: Array.isArray(wire.entitlements) ? wire.entitlements : [],
  usage: usage ? { ...usage, nextRefillAt: usage.nextRefillAt === null ? null : new Date(usage.nextRefillAt) } : null,
  expiresAt: wire.expiresAt === null ? null : new Date(wire.expiresAt),
});

const toDevice = (d: WireDevice): BoundDevice => ({
  ...d,
  lastSeenAt: d.lastSeenAt === null ? null : new Date(d.lastSeenAt),
  leaseExpiresAt: d.leaseExpiresAt === null ? null : new Date(d.leaseExpiresAt),
});

/** An optional moment of the answer as a Date, left out when the answer has none. */
function moment<K extends string>(name: K, value: string | null | undefined): Partial<Record<K, Date | null>> {
  if (value === undefined) return {};
  return { [name]: value === null ? null : new Date(value) } as Partial<Record<K, Date | null>>;
}

/** A release date as the API takes it: an ISO date (a Date is sent as its full ISO time). */
const releaseDateText = (date: Date | string) => (typeof date === 'string' ? date : date.toISOString());

function randomNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
