// Imports (issue 34): licences from another system, or KeyPanel's own export, a chunk of records per
// request. Every record is mapped and checked, then planned against what the shop has (a key by its
// value, an account by its email, a product by its key tag, a device by its key and fingerprint, a
// ledger row by its id) before anything is written; a chunk with any bad record is refused whole,
// with each problem's line. A dry run stops after the plan. The writes are one D1 batch (one
// transaction), each statement resolving its references by those natural keys when it runs and
// inserting with ON CONFLICT DO NOTHING, so a repeat, or the same file imported twice at once, makes
// each key, account and ledger row once.
//
// Triggers: keys go in as 'automatic' and unpaid, and ledger rows under a kind no trigger knows, so
// no trigger charges a payer, pays a commission or moves a balance twice; the same batch then gives
// each key its method and payer, moves each account's balances by the sum of its new ledger rows, and
// gives the rows their kind. An account's balances are therefore the sum of its ledger, as always.
//
// Nothing an import writes can hurt the shop (issue 45): every value is bounded by its row's schema
// as the API bounds it; a device goes on its key only within the key's device limit (counted as an
// activation counts it, in the insert itself); a value a regeneration retired stays retired; a
// chunk whose ledger rows would leave a balance below zero is refused by line. Every record's outcome
// is answered on its own line, so the clients can keep a report; a chunk sent again (a resumed
// import) writes nothing twice, and the audit log says what each chunk moved.
import type { DB } from '../../platform/db/client';
import { rawSql, runBatch, type Statement } from '../../platform/db/client';
import { AppError } from '../../platform/errors';
import { failedConstraint } from '../../platform/db/errors';
import { newId } from '../../platform/ids';
import {
  mapRecord,
  type DeviceRow,
  type ImportAction,
  type ImportCounts,
  type ImportOutcome,
  type ImportRequest,
  type ImportResult,
  type ImportRow,
  type ImportRowType,
  type KeyRow,
  type LedgerRow,
  type ProductRow,
  type UserRow,
} from './schemas';

/** The most problems a refusal lists (the count says how many there were). */
const PROBLEMS_LISTED = 100;
/** Ledger rows go in under this prefix, which no trigger matches, and lose it in the same batch. */
const HELD_KIND = 'import:';

/**
 * Who imports: `proven` when the request carried the owner's proof (their password or a 2FA code,
 * in a signed-in session: an API token never proves). Without it, an import grants no power: the
 * accounts it makes are customers, their addresses unverified, and each outcome says so.
 */
type Importer = { db: DB; actor: { id: string }; ip: string | null; proven: boolean };

/** The ids the routes accept for an account: an import keeps a file's id only when it is one. */
const ACCOUNT_ID = /^[0-9a-f]{24}$/;

export const UNPROVEN_POWER =
  'made a customer with an unverified address: importing a reseller, or an address as verified, needs your password or a 2FA code (an API token cannot)';

type ProductFacts = {
  id: string;
  keyTag: string;
  name: string;
  productType: string;
  minDays: number;
  maxActivations: number;
  expiryModel: string;
};
type Outcome = ImportOutcome;
/** A key's device slots: its limit and the devices (and held slots) on it. */
type Slots = { max: number; taken: number };

const refuse = (problems: { line: number; message: string }[]) => {
  const sorted = [...problems].sort((a, b) => a.line - b.line);
  const first = sorted[0];
  return new AppError(
    'VALIDATION_ERROR',
    `${problems.length} ${problems.length === 1 ? 'record is' : 'records are'} not valid (line ${first.line}: ${first.message}); nothing was imported`,
    { details: { problems: sorted.slice(0, PROBLEMS_LISTED), count: problems.length } },
  );
};

const json = (rows: unknown[]) => JSON.stringify(rows);
const emailsOf = (rows: ImportRow[]) => {
  const set = new Set<string>();
  for (const row of rows) {
    if (row.type === 'user') set.add(row.email);
    if (row.type === 'key') [row.email, row.exported?.createdByEmail, row.exported?.paidByEmail].forEach((e) => e && set.add(e));
    if (row.type === 'ledger') [row.email, row.actorEmail].forEach((e) => e && set.add(e));
  }
  return [...set];
};

/** A username as the rules allow it (letters, digits, dots, dashes, underscores; 3 to 30), from what is wanted. */
function usernameFrom(wanted: string): string {
  const base = wanted.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 30);
  return base.length < 3 ? `${base}user`.slice(0, 30) : base;
}

/** A username for a new account, unique among `taken` (lower case, the shop's and this chunk's). */
function usernameFor(wanted: string, taken: Set<string>): string {
  const base = usernameFrom(wanted);
  let name = base;
  while (taken.has(name.toLowerCase()))
    name = `${base.slice(0, 25)}-${crypto.getRandomValues(new Uint32Array(1))[0].toString(36).slice(0, 4)}`;
  taken.add(name.toLowerCase());
  return name;
}

/** What the shop has of the chunk's references: one batch of reads. */
async function readShop(db: DB, rows: ImportRow[], defaultProduct: string | undefined, now: number) {
  const emails = emailsOf(rows);
  const userIds = new Set<string>();
  const tags = new Set<string>(defaultProduct ? [defaultProduct] : []);
  const keys = new Set<string>();
  const ledgerIds: string[] = [];
  const usernames = new Set<string>();
  for (const row of rows) {
    if (row.type === 'key') {
      keys.add(row.key);
      if (row.product) tags.add(row.product);
      if (row.exported) [row.exported.ownerId, row.exported.createdById, row.exported.paidById].forEach((id) => id && userIds.add(id));
      if (row.email) usernames.add(usernameFrom(row.email.split('@')[0]).toLowerCase());
    }
    if (row.type === 'user') {
      usernames.add(usernameFrom(row.username).toLowerCase());
      // An account is the same account by its id too (an export taken before its address changed).
      userIds.add(row.id);
    }
    if (row.type === 'product') tags.add(row.keyTag);
    if (row.type === 'device' && row.key) keys.add(row.key);
    if (row.type === 'ledger') {
      ledgerIds.push(row.id);
      userIds.add(row.userId);
    }
  }
  const [users, taken, products, foundKeys, devices, ledger, retired] = (await runBatch(db, [
    rawSql(
      `SELECT id, email, role, credits, balance_cents AS cents FROM users
        WHERE email IN (SELECT value FROM json_each(?1)) OR id IN (SELECT value FROM json_each(?2))`,
      json(emails),
      json([...userIds]),
    ),
    rawSql(`SELECT lower(username) AS name FROM users WHERE lower(username) IN (SELECT value FROM json_each(?1))`, json([...usernames])),
    rawSql(
      `SELECT id, key_tag AS keyTag, name, product_type AS productType, min_days AS minDays, max_activations AS maxActivations,
              expiry_model AS expiryModel
       FROM products WHERE key_tag IN (SELECT value FROM json_each(?1))`,
      json([...tags]),
    ),
    // Each key's slots as an activation counts them: its live devices and the slots released devices still hold.
    rawSql(
      `SELECT k.id, k.key, k.product_key_tag AS keyTag, k.max_activations AS max,
              (SELECT count(*) FROM activations c WHERE c.key_id = k.id AND ${LIVE_AT('c', '?2')})
                + (SELECT count(*) FROM held_slots h WHERE h.key_id = k.id AND h.frees_at > ?2) AS taken
         FROM license_keys k WHERE k.key IN (SELECT value FROM json_each(?1))`,
      json([...keys]),
      now,
    ),
    rawSql(
      `SELECT k.key, a.device_fingerprint AS fingerprint FROM activations a JOIN license_keys k ON k.id = a.key_id
       WHERE k.key IN (SELECT value FROM json_each(?1))`,
      json([...keys]),
    ),
    rawSql(`SELECT id FROM ledger WHERE id IN (SELECT value FROM json_each(?1))`, json(ledgerIds)),
    rawSql(`SELECT key FROM retired_keys WHERE key IN (SELECT value FROM json_each(?1))`, json([...keys])),
  ])) as [
    { id: string; email: string; role: string; credits: number; cents: number }[],
    { name: string }[],
    ProductFacts[],
    { id: string; key: string; keyTag: string; max: number; taken: number }[],
    { key: string; fingerprint: string }[],
    { id: string }[],
    { key: string }[],
  ];
  return {
    byEmail: new Map(users.map((u) => [u.email, u.id])),
    emailById: new Map(users.map((u) => [u.id, u.email])),
    balances: new Map(users.map((u) => [u.email, { credits: u.credits, cents: u.cents }])),
    resellers: new Set(users.filter((u) => u.role === 'reseller').map((u) => u.id)),
    usernames: new Set(taken.map((t) => t.name)),
    products: new Map(products.map((p) => [p.keyTag, p])),
    keys: new Map(foundKeys.map((k) => [k.key, k])),
    devices: new Set(devices.map((d) => `${d.key}\n${d.fingerprint}`)),
    ledger: new Set(ledger.map((l) => l.id)),
    retired: new Set(retired.map((r) => r.key)),
  };
}

/** A device that holds its slot at `at`: one without a lease (node-locked), or one whose lease lives. */
const LIVE_AT = (alias: string, at: string) => `(${alias}.lease_expires_at IS NULL OR ${alias}.lease_expires_at > ${at})`;

type Plan = {
  outcomes: (Outcome & { planned: boolean })[];
  users: Record<string, unknown>[];
  /** The emails of the file's user rows planned (the other new accounts are keys' customers). */
  userRowEmails: string[];
  products: Record<string, unknown>[];
  keys: Record<string, unknown>[];
  keyFixes: Record<string, unknown>[];
  devices: Record<string, unknown>[];
  ledger: Record<string, unknown>[];
};

/** What the import would do with each row, from what the shop has; the problems that refuse the chunk. */
export function planChunk(
  request: ImportRequest,
  rows: { line: number; row: ImportRow }[],
  shop: Awaited<ReturnType<typeof readShop>>,
  now: number,
  proven: boolean,
): { plan: Plan; problems: { line: number; message: string }[] } {
  const plan: Plan = { outcomes: [], users: [], userRowEmails: [], products: [], keys: [], keyFixes: [], devices: [], ledger: [] };
  const problems: { line: number; message: string }[] = [];
  const newAccounts = new Map<string, string>(); // email -> id, accounts this chunk creates
  const newProducts = new Map<string, ProductFacts>();
  const newKeys = new Map<string, { line: number; keyTag: string }>();
  const newDevices = new Set<string>();
  const newLedger = new Set<string>();
  // A dry run of a later chunk: what the file's earlier chunks make, which a real run will have written.
  const earlier = request.dryRun && request.inFile ? request.inFile : { products: [], keys: [], emails: [], slots: [], balances: [] };
  const earlierEmails = new Set(earlier.emails);
  const earlierKeys = new Set(earlier.keys);
  const earlierProduct = (tag: string): ProductFacts | undefined =>
    earlier.products.includes(tag)
      ? { id: '', keyTag: tag, name: tag, productType: 'software', minDays: 1, maxActivations: 1, expiryModel: 'time-limited' }
      : undefined;
  // Each key's device slots: the shop's keys as they are, this chunk's as planned, earlier chunks' as the client counted them.
  const slots = new Map<string, Slots>();
  const requestProduct = request.product ? shop.products.get(request.product) : undefined;
  for (const s of earlier.slots)
    slots.set(s.key, { max: s.max ?? request.devices ?? requestProduct?.maxActivations ?? Number.MAX_SAFE_INTEGER, taken: s.taken });
  for (const [key, k] of shop.keys) slots.set(key, { max: k.max, taken: k.taken });
  // Each account's balances as the chunk's ledger rows leave them.
  const balances = new Map<string, { credits: number; cents: number; line: number }>();
  for (const [email, b] of shop.balances) balances.set(email, { ...b, line: 0 });
  for (const b of earlier.balances) {
    const known = balances.get(b.email) ?? { credits: 0, cents: 0, line: 0 };
    balances.set(b.email, { credits: known.credits + b.credits, cents: known.cents + b.cents, line: 0 });
  }

  const outcome = (line: number, type: ImportRowType, action: ImportAction, reason = '', extra: Partial<Outcome> = {}) =>
    plan.outcomes.push({ line, type, action, reason, ...extra, planned: action === 'create' });
  const accountOf = (email: string | null, id: string | null) => {
    if (id && shop.emailById.has(id)) return shop.emailById.get(id)!;
    if (email && (shop.byEmail.has(email) || newAccounts.has(email) || earlierEmails.has(email))) return email;
    return null;
  };
  // The file's ids of the accounts this chunk makes, and the ids they get here.
  const madeFrom = new Map<string, { id: string; role: string }>();
  /** Plans an account; whether it was made with less than the file asked (no proof for its power). */
  const addAccount = (user: Omit<UserRow, 'type'>): boolean => {
    const taken = shop.emailById.has(user.id) || [...newAccounts.values()].includes(user.id);
    const id = ACCOUNT_ID.test(user.id) && !taken ? user.id : newId(now);
    const lowered = !proven && (user.role !== 'user' || user.emailVerifiedAt !== null);
    const role = lowered ? 'user' : user.role;
    // A customer's reseller is a reseller of this shop or of this file, never the account itself.
    const reseller = user.resellerId ? (shop.resellers.has(user.resellerId) ? user.resellerId : madeFrom.get(user.resellerId)) : undefined;
    const resellerId = typeof reseller === 'string' ? reseller : reseller?.role === 'reseller' ? reseller.id : null;
    newAccounts.set(user.email, id);
    madeFrom.set(user.id, { id, role });
    plan.users.push({
      id,
      email: user.email,
      username: usernameFor(user.username, shop.usernames),
      role,
      isActive: user.isActive ? 1 : 0,
      emailVerifiedAt: lowered ? null : user.emailVerifiedAt,
      resellerId: resellerId === id || role !== 'user' ? null : resellerId,
      createdAt: user.createdAt,
    });
    return lowered;
  };
  /** Puts a device on a key within its limit: false (and the line's problem) when the key has no slot left. */
  const takeSlot = (line: number, key: string, fingerprint: string): boolean => {
    const s = slots.get(key);
    if (!s) return true;
    if (s.taken >= s.max) {
      problems.push({
        line,
        message: `device ${fingerprint} would be over key ${key}'s device limit of ${s.max} (it has ${s.taken}): raise the key's limit in the file, or leave the device out`,
      });
      return false;
    }
    s.taken++;
    return true;
  };

  for (const { line, row } of rows) {
    switch (row.type) {
      case 'other':
        outcome(line, 'other', 'skip', row.skip);
        break;
      case 'user':
        if (shop.byEmail.has(row.email) || newAccounts.has(row.email))
          outcome(line, 'user', 'match', 'an account with this email exists', { subject: row.email });
        else if (shop.emailById.has(row.id))
          outcome(line, 'user', 'match', `an account with this id exists, as ${shop.emailById.get(row.id)}`, { subject: row.email });
        else if (row.role === 'owner')
          outcome(line, 'user', 'skip', 'an owner account is not imported: this shop has its own owner', { subject: row.email });
        else {
          const lowered = addAccount(row);
          plan.userRowEmails.push(row.email);
          outcome(line, 'user', 'create', lowered ? UNPROVEN_POWER : '', { subject: row.email, newAccount: row.email });
        }
        break;
      case 'product':
        if (shop.products.has(row.keyTag) || newProducts.has(row.keyTag))
          outcome(line, 'product', 'match', 'a product with this key tag exists', { subject: row.keyTag });
        else {
          newProducts.set(row.keyTag, { ...row, id: row.id });
          plan.products.push(productValues(row));
          outcome(line, 'product', 'create', '', { subject: row.keyTag });
        }
        break;
      case 'key':
        planKey(line, row);
        break;
      case 'device':
        planDevice(line, row);
        break;
      case 'ledger':
        planLedger(line, row);
        break;
    }
  }
  checkBalances();
  return { plan, problems };

  function planKey(line: number, row: KeyRow) {
    const subject = { subject: row.key };
    if (row.skip) return outcome(line, 'key', 'skip', row.skip, subject);
    const earlier = newKeys.get(row.key);
    if (earlier) return outcome(line, 'key', 'skip', `the same key as line ${earlier.line}`, subject);
    const tag = row.product ?? request.product;
    const existing = shop.keys.get(row.key);
    if (existing) {
      if (tag && existing.keyTag !== tag) return outcome(line, 'key', 'skip', `this key exists for product ${existing.keyTag}`, subject);
      return outcome(line, 'key', 'match', 'this key exists', subject);
    }
    // A regeneration replaced this value: the licensing API answers it KEY_REGENERATED, and so it stays.
    if (shop.retired.has(row.key))
      return outcome(line, 'key', 'skip', 'a regeneration retired this value (the key lives on under its new value)', subject);
    if (!tag) return problems.push({ line, message: 'no product: give the row a product (key tag), or the import one' });
    const product = shop.products.get(tag) ?? newProducts.get(tag) ?? earlierProduct(tag);
    if (!product) return problems.push({ line, message: `no product with key tag ${tag}: add it first` });
    const devices = row.devices ?? request.devices ?? product.maxActivations;
    if (row.fingerprints.length > devices)
      return problems.push({ line, message: `${row.fingerprints.length} devices, over the key's device limit of ${devices}` });
    const days = row.days ?? request.days ?? product.minDays;
    const x = row.exported;
    // The account the key belongs to: by its id when the shop has it (the same account, whatever its address now), else by email.
    const email = (x?.ownerId ? accountOf(null, x.ownerId) : null) ?? row.email ?? null;
    let newAccount: string | undefined;
    if (email && !shop.byEmail.has(email) && !newAccounts.has(email) && !earlierEmails.has(email)) {
      newAccount = email;
      addAccount({
        id: newId(now),
        email,
        username: email.split('@')[0],
        role: 'user',
        isActive: true,
        emailVerifiedAt: null,
        resellerId: null,
        createdAt: now,
      });
    }
    const status = row.status === 'expired' || row.status === 'revoked' || row.status === 'used' ? row.status : 'available';
    // A perpetual key has no expiry to make up; another in use without one ends now.
    const expiresAt = row.expiresAt ?? ((status === 'expired' || status === 'used') && row.expiryModel !== 'perpetual' ? now : null);
    // As the insert resolves it: the row's model, else its product's (a perpetual product's key with an expiry: time-limited).
    const perpetual = row.expiryModel ? row.expiryModel === 'perpetual' : product.expiryModel === 'perpetual' && expiresAt === null;
    newKeys.set(row.key, { line, keyTag: product.keyTag });
    slots.set(row.key, { max: devices, taken: row.fingerprints.length });
    plan.keys.push({
      id: x?.id ?? newId(now),
      key: row.key,
      status,
      productKeyTag: product.keyTag,
      productName: x?.productName ?? null,
      productType: x?.productType ?? null,
      duration: days,
      maxActivations: devices,
      purchasedAt: x ? x.purchasedAt : email ? now : null,
      email,
      createdByEmail: x ? accountOf(x.createdByEmail, x.createdById) : null,
      purchasePrice: x?.purchasePrice ?? 0,
      revokeReason: x?.revokeReason ?? (status === 'revoked' ? 'Imported as revoked' : null),
      revokedAt: x?.revokedAt ?? (status === 'revoked' ? now : null),
      firstUsedAt: x?.firstUsedAt ?? (status === 'used' ? now : null),
      expiresAt,
      expiryModel: row.expiryModel ?? null,
      transferCount: x?.transferCount ?? 0,
      isTrial: x?.isTrial ? 1 : 0,
      entitlements: JSON.stringify(x?.entitlements ?? []),
      usageRemaining: x?.usageRemaining ?? null,
      usagePeriodStart: x?.usagePeriodStart ?? null,
      createdAt: x?.createdAt ?? now,
    });
    const paidBy = x ? accountOf(x.paidByEmail, x.paidById) : null;
    if (x && (x.generationMethod !== 'automatic' || paidBy))
      plan.keyFixes.push({ key: row.key, method: x.generationMethod, paidByEmail: paidBy });
    for (const fingerprint of row.fingerprints) {
      newDevices.add(`${row.key}\n${fingerprint}`);
      plan.devices.push({ id: newId(now), line, key: row.key, fingerprint, deviceInfo: null, activatedAt: now, lastUsed: null });
    }
    outcome(line, 'key', 'create', '', {
      ...subject,
      devices: row.fingerprints.length,
      perpetual,
      ...(newAccount ? { newAccount } : {}),
    });
  }

  function planDevice(line: number, row: DeviceRow) {
    const subject = { subject: row.fingerprint, ...(row.key ? { onKey: row.key } : {}) };
    if (!row.key) return outcome(line, 'device', 'skip', `its key (${row.keyId}) is not in the file`, subject);
    if (!shop.keys.has(row.key) && !newKeys.has(row.key) && !earlierKeys.has(row.key))
      return outcome(line, 'device', 'skip', 'its key is neither in this shop nor in the file', subject);
    const id = `${row.key}\n${row.fingerprint}`;
    if (shop.devices.has(id) || newDevices.has(id)) return outcome(line, 'device', 'match', 'this device is on its key', subject);
    if (!takeSlot(line, row.key, row.fingerprint)) return;
    newDevices.add(id);
    plan.devices.push({
      id: row.id,
      line,
      key: row.key,
      fingerprint: row.fingerprint,
      deviceInfo: row.deviceInfo,
      activatedAt: row.activatedAt,
      lastUsed: row.lastUsed,
      leaseExpiresAt: row.leaseExpiresAt,
      borrowedUntil: row.borrowedUntil,
    });
    outcome(line, 'device', 'create', '', subject);
  }

  function planLedger(line: number, row: LedgerRow) {
    const subject = { subject: row.id };
    if (shop.ledger.has(row.id) || newLedger.has(row.id)) return outcome(line, 'ledger', 'match', 'this ledger row exists', subject);
    const email = accountOf(row.email, row.userId);
    if (!email) return outcome(line, 'ledger', 'skip', 'its account is neither in this shop nor in the file', subject);
    newLedger.add(row.id);
    const balance = balances.get(email) ?? { credits: 0, cents: 0, line };
    balances.set(email, { credits: balance.credits + row.creditsDelta, cents: balance.cents + row.usdCentsDelta, line });
    plan.ledger.push({
      id: row.id,
      email,
      actorEmail: row.actorEmail ?? (row.actorId ? (shop.emailById.get(row.actorId) ?? null) : null),
      actorId: row.actorId,
      kind: `${HELD_KIND}${row.kind}`,
      creditsDelta: row.creditsDelta,
      usdCentsDelta: row.usdCentsDelta,
      reference: row.reference,
      note: row.note,
      createdAt: row.createdAt,
    });
    outcome(line, 'ledger', 'create', '', subject);
  }

  /** A balance is never below zero: the account's last ledger row in the chunk names the one that leaves it there. */
  function checkBalances() {
    for (const [email, b] of balances) {
      if (b.line === 0) continue;
      if (b.credits < 0)
        problems.push({
          line: b.line,
          message: `the ledger rows up to here leave ${email} with ${b.credits} credits: a balance cannot go below zero`,
        });
      else if (b.cents < 0)
        problems.push({
          line: b.line,
          message: `the ledger rows up to here leave ${email} with ${b.cents} USD cents: a balance cannot go below zero`,
        });
      else if (b.credits > Number.MAX_SAFE_INTEGER || b.cents > Number.MAX_SAFE_INTEGER)
        problems.push({ line: b.line, message: `the ledger rows up to here leave ${email} with more than a balance may hold` });
    }
  }
}

function productValues(p: ProductRow) {
  return { ...p, isActive: p.isActive ? 1 : 0, features: JSON.stringify(p.features), entitlements: JSON.stringify(p.entitlements) };
}

const v = (name: string) => `j.value->>'${name}'`;
const userBy = (name: string) => `(SELECT id FROM users WHERE email = ${v(name)})`;

/** The batch that writes a plan: each statement answers the ids it wrote (RETURNING). */
function writes(plan: Plan, now: number, audit: { actorId: string; ip: string | null; details: Record<string, unknown> }) {
  const statements: Statement[] = [];
  const index = { users: -1, products: -1, keys: -1, devices: -1, present: -1, ledger: -1 };
  const add = (name: keyof typeof index | null, statement: Statement) => {
    if (name) index[name] = statements.length;
    statements.push(statement);
  };
  if (plan.users.length)
    add(
      'users',
      rawSql(
        `INSERT INTO users (id, username, email, password_hash, role, is_active, email_verified_at, reseller_id, created_at)
         SELECT ${v('id')},
           CASE WHEN EXISTS (SELECT 1 FROM users t WHERE lower(t.username) = lower(${v('username')}))
             THEN substr(${v('username')}, 1, 25) || '-' || lower(hex(randomblob(2))) ELSE ${v('username')} END,
           ${v('email')}, NULL, ${v('role')}, ${v('isActive')}, ${v('emailVerifiedAt')}, ${v('resellerId')}, ${v('createdAt')}
         FROM json_each(?1) j WHERE true ON CONFLICT DO NOTHING RETURNING id, email, username`,
        json(plan.users),
      ),
    );
  if (plan.products.length)
    add(
      'products',
      rawSql(
        `INSERT INTO products (id, name, description, product_type, key_tag, base_credit_cost, credits_per_day, min_days, max_days, max_activations,
           is_active, features, offline_token_hours, license_model, lease_minutes, borrow_max_hours, swap_limit, swap_window_days, trial_days,
           entitlements, usage_allowance, usage_refill_amount, usage_refill_days, expiry_model, created_at)
         SELECT ${v('id')}, ${v('name')}, ${v('description')}, ${v('productType')}, ${v('keyTag')}, ${v('baseCreditCost')}, ${v('creditsPerDay')},
           ${v('minDays')}, ${v('maxDays')}, ${v('maxActivations')}, ${v('isActive')}, ${v('features')}, ${v('offlineTokenHours')}, ${v('licenseModel')},
           ${v('leaseMinutes')}, ${v('borrowMaxHours')}, ${v('swapLimit')}, ${v('swapWindowDays')}, ${v('trialDays')},
           ${v('entitlements')}, ${v('usageAllowance')}, ${v('usageRefillAmount')}, ${v('usageRefillDays')}, ${v('expiryModel')}, ${v('createdAt')}
         FROM json_each(?1) j WHERE true ON CONFLICT DO NOTHING RETURNING key_tag AS keyTag`,
        json(plan.products),
      ),
    );
  if (plan.keys.length) {
    add(
      'keys',
      rawSql(
        `INSERT INTO license_keys (id, key, status, product_id, product_name, product_key_tag, product_type, duration, max_activations, purchased_at,
           purchased_by, created_by, purchase_price, revoke_reason, revoked_at, first_used_at, expires_at, generation_method, transfer_count, is_trial,
           entitlements, usage_remaining, usage_period_start, expiry_model, created_at, imported_at)
         SELECT ${v('id')}, ${v('key')}, ${v('status')}, p.id, coalesce(${v('productName')}, p.name), p.key_tag, coalesce(${v('productType')}, p.product_type),
           ${v('duration')}, ${v('maxActivations')}, ${v('purchasedAt')}, ${userBy('email')}, ${userBy('createdByEmail')}, ${v('purchasePrice')},
           ${v('revokeReason')}, ${v('revokedAt')}, ${v('firstUsedAt')}, ${v('expiresAt')}, 'automatic', ${v('transferCount')}, ${v('isTrial')},
           ${v('entitlements')}, ${v('usageRemaining')}, ${v('usagePeriodStart')},
           coalesce(${v('expiryModel')}, CASE WHEN p.expiry_model = 'perpetual' AND ${v('expiresAt')} IS NOT NULL THEN 'time-limited' ELSE p.expiry_model END),
           ${v('createdAt')}, ?2
         FROM json_each(?1) j JOIN products p ON p.key_tag = ${v('productKeyTag')}
         WHERE NOT EXISTS (SELECT 1 FROM retired_keys r WHERE r.key = ${v('key')}) ON CONFLICT DO NOTHING RETURNING key`,
        json(plan.keys),
        now,
      ),
    );
    // Only the keys this batch made (imported now, still 'automatic'): a concurrent import's are its own.
    if (plan.keyFixes.length)
      add(
        null,
        rawSql(
          `UPDATE license_keys SET generation_method = ${v('method')}, paid_by = ${userBy('paidByEmail')}
           FROM json_each(?1) j WHERE license_keys.key = ${v('key')} AND license_keys.imported_at = ?2 AND license_keys.generation_method = 'automatic'`,
          json(plan.keyFixes),
          now,
        ),
      );
  }
  if (plan.devices.length) {
    // Within the key's device limit, counted as an activation counts it (its live devices and the
    // slots released devices hold) when the statement runs, plus the devices of this statement before
    // it that are new on the key: SQLite reads an INSERT's SELECT whole before it writes.
    add(
      'devices',
      rawSql(
        `INSERT INTO activations (id, key_id, device_fingerprint, device_info, activated_at, last_used, lease_expires_at, borrowed_until)
         SELECT ${v('id')}, k.id, ${v('fingerprint')}, ${v('deviceInfo')}, ${v('activatedAt')}, ${v('lastUsed')}, ${v('leaseExpiresAt')}, ${v('borrowedUntil')}
         FROM json_each(?1) j JOIN license_keys k ON k.key = ${v('key')}
         WHERE (SELECT count(*) FROM activations c WHERE c.key_id = k.id AND ${LIVE_AT('c', '?2')})
             + (SELECT count(*) FROM held_slots h WHERE h.key_id = k.id AND h.frees_at > ?2 AND h.device_fingerprint != ${v('fingerprint')})
             + (SELECT count(*) FROM json_each(?1) e WHERE e.key < j.key AND e.value->>'key' = ${v('key')}
                  AND NOT EXISTS (SELECT 1 FROM activations o WHERE o.key_id = k.id AND o.device_fingerprint = e.value->>'fingerprint'))
             < k.max_activations
         ON CONFLICT DO NOTHING RETURNING id`,
        json(plan.devices),
        now,
      ),
    );
    // Which planned devices are on their keys now (a device not written: there already, or no slot left).
    add(
      'present',
      rawSql(
        `SELECT ${v('id')} AS id FROM json_each(?1) j
          WHERE EXISTS (SELECT 1 FROM activations a JOIN license_keys k ON k.id = a.key_id WHERE k.key = ${v('key')} AND a.device_fingerprint = ${v('fingerprint')})`,
        json(plan.devices),
      ),
    );
  }
  if (plan.ledger.length) {
    const ids = json(plan.ledger.map((row) => row.id));
    add(
      'ledger',
      rawSql(
        `INSERT INTO ledger (id, user_id, actor_id, kind, credits_delta, usd_cents_delta, reference, note, created_at)
         SELECT ${v('id')}, u.id, coalesce(${userBy('actorEmail')}, ${v('actorId')}), ${v('kind')}, ${v('creditsDelta')}, ${v('usdCentsDelta')}, ${v('reference')}, ${v('note')}, ${v('createdAt')}
         FROM json_each(?1) j JOIN users u ON u.email = ${v('email')} WHERE true ON CONFLICT DO NOTHING RETURNING id`,
        json(plan.ledger),
      ),
    );
    // Each account's balances move by the sum of the rows this batch wrote for it, then the rows take their kind.
    add(
      null,
      rawSql(
        `UPDATE users SET credits = users.credits + t.moved_credits, balance_cents = users.balance_cents + t.moved_cents
         FROM (SELECT user_id, sum(credits_delta) AS moved_credits, sum(usd_cents_delta) AS moved_cents FROM ledger
               WHERE id IN (SELECT value FROM json_each(?1)) AND kind LIKE '${HELD_KIND}%' GROUP BY user_id) t
         WHERE users.id = t.user_id`,
        ids,
      ),
    );
  }
  // What the batch moved, read from what it wrote (a concurrent import's rows are its own): before the
  // ledger rows lose their held kind and the new accounts get their own audit rows.
  add(null, summaryAudit(plan, now, audit));
  if (plan.ledger.length)
    add(
      null,
      rawSql(
        `UPDATE ledger SET kind = substr(kind, ${HELD_KIND.length + 1}) WHERE id IN (SELECT value FROM json_each(?1)) AND kind LIKE '${HELD_KIND}%'`,
        json(plan.ledger.map((row) => row.id)),
      ),
    );
  if (plan.users.length) add(null, accountsAudit(plan.users, audit.actorId, audit.ip, now));
  return { statements, index };
}

/**
 * The import's audit row for a chunk: what it moved, read in the batch from the rows it wrote: the
 * accounts it made and their roles, the credits and USD (cents) it moved per account, its keys by
 * product and its devices.
 */
function summaryAudit(plan: Plan, now: number, audit: { actorId: string; ip: string | null; details: Record<string, unknown> }) {
  return rawSql(
    `INSERT INTO audit_log (id, actor_id, action, target_type, target_id, details, ip_address, created_at)
     SELECT lower(hex(randomblob(12))), ?1, 'keys.import', 'license_key', NULL,
       json_set(json(?3),
         '$.accounts', json(coalesce((SELECT json_group_array(json_object('email', u.email, 'role', u.role))
            FROM json_each(?4) j JOIN users u ON u.id = ${v('id')} AND u.email = ${v('email')}
           WHERE u.password_hash IS NULL AND NOT EXISTS (SELECT 1 FROM audit_log l WHERE l.action = 'user.import' AND l.target_id = u.id)), '[]')),
         '$.balances', json(coalesce((SELECT json_group_array(json_object('email', u.email, 'credits', t.credits, 'usdCents', t.cents))
            FROM (SELECT user_id, sum(credits_delta) AS credits, sum(usd_cents_delta) AS cents FROM ledger
                   WHERE id IN (SELECT value FROM json_each(?5)) AND kind LIKE '${HELD_KIND}%' GROUP BY user_id) t
            JOIN users u ON u.id = t.user_id), '[]')),
         '$.keysByProduct', json(coalesce((SELECT json_group_object(tag, n)
            FROM (SELECT product_key_tag AS tag, count(*) AS n FROM license_keys
                   WHERE imported_at = ?2 AND key IN (SELECT value FROM json_each(?6)) GROUP BY product_key_tag)), '{}')),
         '$.devices', (SELECT count(*) FROM activations WHERE id IN (SELECT value FROM json_each(?7)))),
       ?8, ?2`,
    audit.actorId,
    now,
    JSON.stringify(audit.details),
    json(plan.users.map((u) => ({ id: u.id, email: u.email }))),
    json(plan.ledger.map((row) => row.id)),
    json(plan.keys.map((k) => k.key)),
    json(plan.devices.map((d) => d.id)),
    audit.ip,
  );
}

/**
 * An audit row per account the batch made (its id, address and role), beside the import's own:
 * only for accounts this import created (no password yet, and no such row before).
 */
function accountsAudit(accounts: Record<string, unknown>[], actorId: string, ip: string | null, now: number): Statement {
  return rawSql(
    `INSERT INTO audit_log (id, actor_id, action, target_type, target_id, details, ip_address, created_at)
     SELECT lower(hex(randomblob(12))), ?2, 'user.import', 'user', u.id,
            json_object('username', u.username, 'email', u.email, 'role', u.role, 'verified', json(CASE WHEN u.email_verified_at IS NULL THEN 'false' ELSE 'true' END)), ?3, ?4
       FROM json_each(?1) j JOIN users u ON u.id = ${v('id')} AND u.email = ${v('email')}
      WHERE u.password_hash IS NULL
        AND NOT EXISTS (SELECT 1 FROM audit_log l WHERE l.action = 'user.import' AND l.target_id = u.id)`,
    json(accounts),
    actorId,
    ip,
    now,
  );
}

export type ImportAnswer = ImportResult & { newAccounts: { id: string; email: string; username: string }[] };

/** Imports (or, in a dry run, plans) one chunk of a file's records. */
export async function importChunk(importer: Importer, request: ImportRequest, now = Date.now()): Promise<ImportAnswer> {
  const { db, actor, ip } = importer;
  const problems: { line: number; message: string }[] = [];
  const rows: { line: number; row: ImportRow }[] = [];
  for (const { line, record } of request.rows) {
    const mapped = mapRecord(request.format, record);
    if (mapped.ok) rows.push({ line, row: mapped.row });
    else problems.push({ line, message: mapped.message });
  }
  if (problems.length) throw refuse(problems);

  const shop = await readShop(
    db,
    rows.map((r) => r.row),
    request.product,
    now,
  );
  const planned = planChunk(request, rows, shop, now, importer.proven);
  if (planned.problems.length) throw refuse(planned.problems);
  const { plan } = planned;

  // What the batch wrote, by each row's natural key (null: a dry run, or nothing to write).
  let written: null | {
    users: Set<string>;
    products: Set<string>;
    keys: Set<string>;
    devices: Set<string>;
    present: Set<string>;
    ledger: Set<string>;
  } = null;
  let newAccounts: { id: string; email: string; username: string }[] = [];
  if (!request.dryRun && plan.outcomes.some((o) => o.planned)) {
    const details = { format: request.format, records: request.rows.length, lines: [request.rows[0].line, request.rows.at(-1)!.line] };
    const { statements, index } = writes(plan, now, { actorId: actor.id, ip, details });
    let results: unknown[][];
    try {
      results = (await runBatch(db, statements)) as unknown[][];
    } catch (err) {
      // A balance moved between the plan and the write (a purchase meanwhile): nothing was written.
      if (failedConstraint(err, 'CHECK', 'users_credits_check') || failedConstraint(err, 'CHECK', 'users_balance_check'))
        throw new AppError(
          'CONFLICT',
          'A balance changed while this part of the file was imported; nothing of it was written: send it again',
        );
      throw err;
    }
    const column = (name: keyof typeof index, field: string) =>
      new Set(index[name] >= 0 ? (results[index[name]] as Record<string, string>[]).map((r) => r[field]) : []);
    newAccounts = index.users >= 0 ? (results[index.users] as { id: string; email: string; username: string }[]) : [];
    written = {
      users: new Set(newAccounts.map((a) => a.email)),
      products: column('products', 'keyTag'),
      keys: column('keys', 'key'),
      devices: column('devices', 'id'),
      present: column('present', 'id'),
      ledger: column('ledger', 'id'),
    };
  }

  // A device row's own id in the plan (a key's fingerprints travel with their key's outcome).
  const deviceIdAt = new Map(plan.devices.filter((d) => d.line !== undefined).map((d) => [d.line as number, d.id as string]));
  // In a real run, a row planned but not written was written by a concurrent import first (matched),
  // or, for a device, found its key full (skipped, and said so).
  const outcomes: Outcome[] = plan.outcomes.map(({ planned: isPlanned, ...o }) => {
    if (!isPlanned || !written) return o;
    const subject = o.subject ?? '';
    const made =
      o.type === 'user'
        ? written.users.has(subject)
        : o.type === 'product'
          ? written.products.has(subject)
          : o.type === 'key'
            ? written.keys.has(subject)
            : o.type === 'ledger'
              ? written.ledger.has(subject)
              : written.devices.has(deviceIdAt.get(o.line) ?? '');
    if (made) return o.newAccount && !written.users.has(o.newAccount) ? withoutNewAccount(o) : o;
    if (o.type === 'device' && !written.present.has(deviceIdAt.get(o.line) ?? ''))
      return { ...o, action: 'skip', reason: 'its key took other devices meanwhile: no slot is left under its device limit' };
    return { ...withoutNewAccount(o), action: 'match', reason: 'written meanwhile (by another import)' };
  });
  const zero = (): ImportCounts => ({ create: 0, match: 0, skip: 0 });
  const counts = zero();
  const byType: Partial<Record<ImportRowType, ImportCounts>> = {};
  const story = { devices: 0, perpetual: 0, accounts: 0 };
  for (const o of outcomes) {
    counts[o.action]++;
    (byType[o.type] ??= zero())[o.action]++;
    if (o.action !== 'create') continue;
    story.devices += o.type === 'device' ? 1 : (o.devices ?? 0);
    if (o.perpetual) story.perpetual++;
    if (o.newAccount) story.accounts++;
  }
  return {
    dryRun: request.dryRun,
    counts,
    byType,
    accountsCreated: newAccounts.length,
    signInMail: 'off',
    story,
    outcomes,
    newAccounts,
  };
}

const withoutNewAccount = ({ newAccount: _newAccount, ...o }: Outcome): Outcome => o;
