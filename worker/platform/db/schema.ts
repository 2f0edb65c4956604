// The whole KeyPanel data model. Money is integer: credits, and USD in cents.
// Columns that point at users from history (keys, ledger, audit) carry no foreign key,
// so deleting a user keeps that history; screens show such a reference as a deleted user.
//
// Triggers (drizzle does not model them; each is in the migration named) keep these true. Each
// counter has one owner: the triggers move products' totalGenerated, totalSold, revenue and
// totalActivations, and no statement of the code moves them itself. (Credits and USD balances move
// with their ledger rows: by the triggers below for purchases and card top-ups, by the guarded
// UPDATE beside its ledger row for exchanges and an owner's adjustments.)
// - ledger_purchase_debits_payer (0005): a purchase's ledger row takes its credits from the payer as
//   it goes in; the CHECK on users.credits then fails the whole batch when they are not there.
// - license_keys_count_on_product (0005): every key made counts on its product (totalGenerated, and
//   for a bought key totalSold and revenue).
// - license_keys_charge_payer (0007): a key bought with credits (paid_by set) writes its payer's
//   ledger row, and so the debit, in the same statement.
// - activations_start_key_and_count_on_product (0008, rewritten by 0027): a device's first activation
//   starts a generated key's clock (used, firstUsedAt, expiresAt; a perpetual key gets no expiry) and
//   counts on the product (totalActivations).
// - caller_guard_check (0009, rewritten by 0016): not a figure but a guard; inserting into the
//   caller_guard view aborts the batch unless the caller's account is active, its session or API
//   token live under the account's credential epoch, and its role the one named (platform/db/session.ts).
// - activations_take_back_held_slot (0010): a device activated again on a key drops the slot it held
//   there as a released device (held_slots); its activation counts instead.
// - activations_uncount_on_product (0015): a device removed (by its app, its customer, the owner, or
//   with its key) uncounts on its key's product (totalActivations), so the figure is the key rows' count.
// - license_keys_remove_activations (0015): a key deleted removes its devices first, while the key row
//   still names their product for the trigger above (its ON DELETE CASCADE would run after).
// - activations_replace_pending (0020): a device activated on a key takes the place of the key's
//   device its customer asked to replace (replace_pending_at), which goes in the same statement.
// - activations_convert_trial (0020): a device's activation of a paid key marks its trial of the same
//   product converted (trials.converted_key_id).
// - ledger_topup_moves_balance (0013): a card top-up's ledger row (topup, or topup_refund) moves the
//   USD balance by its amount as it goes in (modules/billing/stripe-events.ts).
// - ledger_reversal_moves_balances (0017): a reversal's ledger row (card_reversal, dispute_return)
//   moves both balances by its deltas (modules/billing/reversals.ts).
// - ledger_spending_guard (0017): not a figure but a guard; a purchase's or an exchange's ledger row
//   aborts the batch while the account owes a reversal (SPENDING_BLOCKED_OWED), and an exchange's
//   when it would spend top-ups still held (FUNDS_HELD).
// - license_keys_pay_commission (0021): a key a customer buys with their own credits writes, when the
//   customer belongs to a reseller whose tier pays a commission on the product, the reseller's
//   commission ledger row (floor of price x percent / 100, the key its reference) in the same statement.
// - ledger_commission_credits_reseller (0021): a commission ledger row adds its credits to the reseller.
// - license_keys_reseller_terms (0021): not a figure but a guard; a key a reseller buys for a customer
//   aborts the batch when their tier does not sell its product (RESELLER_PRODUCT_NOT_IN_TIER) or they
//   bought their tier's daily cap of keys this UTC day already (RESELLER_DAILY_CAP).
// - activations_record_in_key_events (0023): a device's activation writes its line of the key's
//   history (key_events, kind 'activated', the activation's id) in the same statement.
// - ledger_renewal_debits_payer (0027): a renewal's ledger row takes its credits from the payer as it
//   goes in (as a purchase's does), and ledger_spending_guard (rewritten by 0027) refuses it as it
//   refuses a purchase.
// - ledger_renewal_counts_on_product (0027): a renewal's credits count on its key's product (revenue).
// - ledger_renewal_pays_commission (0027): a customer's own renewal of their key pays their reseller's
//   commission, as their purchase does (license_keys_pay_commission).
// - users_give_referral_code (0021), users_give_referral_code_on_role (0021): an account that is or
//   becomes a reseller gets its referral code.
// - ledger_spending_guard (rewritten by 0027): also aborts while the account owes commission taken
//   back after a customer's card reversal (commission_clawbacks.owed; SPENDING_BLOCKED_OWED).
// - users_reseller_stretch_on_insert, users_reseller_stretch_on_change (0027): an account created
//   with a reseller, or whose reseller changes, opens (and closes) its stretch in customer_resellers.
// - license_keys_count_status_on_insert, _on_delete, _on_change and users_count_role_on_insert,
//   _on_delete, _on_change (0032): every key by its stored status and every account by role, in
//   shop_counts, as rows go in, change and go out.
// - license_keys_sold_by_day_on_insert, _on_delete, ledger_revenue_by_day, users_new_by_day_on_insert,
//   _on_delete, activations_by_day_on_insert, _on_delete (0032): System Analytics' figures per UTC
//   day (daily_figures, daily_sales), as the rows they count go in and out.
// - ledger_reseller_figures_on_insert, _on_kind (0033): a commission or purchase ledger row (written,
//   or given its kind by an import) adds to its account's figures (reseller_figures, reseller_days)
//   and, through the view reseller_sale (its trigger reseller_sale_adds_to_reseller_figures), to the
//   running totals of its key's product (reseller_products, reseller_product_days); a purchase row
//   written before its key (license_keys_charge_payer) is added by license_keys_charge_payer_by_product
//   as the key goes in.
// - users_reseller_figures_on_insert, _on_change, _on_delete and license_keys_reseller_figures_on_insert,
//   _on_change, _on_delete (0033): a reseller's customers (reseller_figures) and keys for customers by
//   status (reseller_key_counts), as accounts and keys go in, change and go out.
// - users_reseller_figures_on_role (0033): the credits' figures are kept for resellers and owners
//   only (the ledger triggers above skip a customer's rows); an account made a reseller has them
//   counted from its ledger, one made a customer loses them.
// - license_keys_count_by_product_on_insert, _on_delete, _on_change (0034): every key by its product
//   and stored status (product_key_counts), for the owner's search and product list.
// - license_keys_count_by_tag_on_insert, _on_delete, _on_change (0034): the keys whose value starts
//   with a tag and a dash, by that tag and their product (key_tag_counts), for the owner's search.
import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import {
  DISPUTE_STATUSES,
  EXPIRY_MODELS,
  GENERATION_METHODS,
  KEY_EVENT_KINDS,
  KEY_STATUSES,
  LANGUAGES,
  LICENSE_MODELS,
  PAYMENT_STATUSES,
  PRODUCT_TYPES,
  RENEWAL_OUTCOMES,
  RENEWAL_SOURCES,
  ROLES,
  sqlList,
  MAIL_KINDS,
  MAIL_STATES,
  USAGE_EVENT_KINDS,
  type Role,
} from '../vocabulary';

const createdAt = () => integer('created_at', { mode: 'timestamp_ms' }).notNull();

/** An account acting with a role: the signed-in caller, as domain functions need it. */
export type Actor = { id: string; role: Role };

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    username: text('username').notNull(),
    email: text('email').notNull(),
    passwordHash: text('password_hash'),
    role: text('role', { enum: ROLES }).notNull().default('user'),
    balanceCents: integer('balance_cents').notNull().default(0),
    credits: integer('credits').notNull().default(0),
    isActive: integer('is_active', { mode: 'boolean' }).notNull().default(true),
    createdAt: createdAt(),
    lastLogin: integer('last_login', { mode: 'timestamp_ms' }),
    twoFactorEnabled: integer('two_factor_enabled', { mode: 'boolean' }).notNull().default(false),
    twoFactorSecret: text('two_factor_secret'),
    twoFactorPendingSecret: text('two_factor_pending_secret'),
    // The last TOTP time step accepted, so a code is never accepted twice.
    twoFactorLastStep: integer('two_factor_last_step'),
    googleId: text('google_id'),
    googleEmail: text('google_email'),
    passwordChangedAt: integer('password_changed_at', { mode: 'timestamp_ms' }),
    /** Set when a card payment of theirs was disputed: the owner sees it, and card top-ups pause. */
    paymentFlaggedAt: integer('payment_flagged_at', { mode: 'timestamp_ms' }),
    /**
     * Which generation of credentials is live: a session or API token made under an older one is
     * over. A reset, a password change, a two-factor change, a role change and a deactivation move
     * it on, so ending every session and token is one UPDATE, with no list to miss one.
     */
    credentialEpoch: integer('credential_epoch').notNull().default(0),
    /** When the address was proven (its link opened, a reset completed, Google's verified address); null: not yet. */
    emailVerifiedAt: integer('email_verified_at', { mode: 'timestamp_ms' }),
    /** A reseller's tier (null: the default tier, if the owner marked one). */
    resellerTierId: text('reseller_tier_id'),
    /** A reseller's referral code (`/register?ref=CODE`), given by a trigger when the account becomes a reseller (0021). */
    referralCode: text('referral_code'),
    /** The reseller a customer belongs to (by their referral link, or the owner's choice); null: none. */
    resellerId: text('reseller_id'),
    /** The notice mails (NOTICE_MAIL_KINDS) this account does not want: a JSON array, set on the security page or by a one-click unsubscribe. */
    mailOptOuts: text('mail_opt_outs', { mode: 'json' })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    /** When the low-balance mail went, until the balance recovers (then cleared): at most one per dip. */
    lowBalanceMailedAt: integer('low_balance_mailed_at', { mode: 'timestamp_ms' }),
    /** The language the user chose for the web app (vocabulary's LANGUAGES); null: their browser's. */
    language: text('language', { enum: LANGUAGES }),
  },
  (t) => [
    uniqueIndex('users_email_unique').on(t.email),
    uniqueIndex('users_username_unique').on(sql`lower(${t.username})`),
    uniqueIndex('users_google_id_unique').on(t.googleId),
    index('users_role_created_idx').on(t.role, t.createdAt),
    index('users_created_idx').on(t.createdAt),
    uniqueIndex('users_referral_code_unique').on(t.referralCode),
    // A reseller's customers, newest first (their list, their count, their purchases).
    index('users_reseller_idx')
      .on(t.resellerId, t.createdAt)
      .where(sql`${t.resellerId} IS NOT NULL`),
    check('users_role_check', sql`${t.role} IN (${sql.raw(sqlList(ROLES))})`),
    check('users_credits_check', sql`${t.credits} >= 0`),
    check('users_balance_check', sql`${t.balanceCents} >= 0`),
  ],
);

/**
 * What a reseller's terms are (issue 32): the wholesale discount on the list price of a key bought
 * for a customer, the commission on a referred customer's own purchases, the products the tier may
 * sell (null: all) and an optional cap on keys bought for customers per UTC day. At most one tier
 * is the default, which every reseller without a tier of their own is in.
 */
export const resellerTiers = sqliteTable(
  'reseller_tiers',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    discountPercent: integer('discount_percent').notNull().default(0),
    commissionPercent: integer('commission_percent').notNull().default(0),
    productIds: text('product_ids', { mode: 'json' }).$type<string[] | null>(),
    dailyKeyCap: integer('daily_key_cap'),
    isDefault: integer('is_default', { mode: 'boolean' }).notNull().default(false),
    createdAt: createdAt(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    uniqueIndex('reseller_tiers_name_unique').on(sql`lower(${t.name})`),
    uniqueIndex('reseller_tiers_default_unique')
      .on(t.isDefault)
      .where(sql`${t.isDefault} = 1`),
    check('reseller_tiers_percents_check', sql`${t.discountPercent} BETWEEN 0 AND 90 AND ${t.commissionPercent} BETWEEN 0 AND 90`),
    check('reseller_tiers_cap_check', sql`${t.dailyKeyCap} IS NULL OR ${t.dailyKeyCap} >= 1`),
  ],
);

export const products = sqliteTable(
  'products',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    productType: text('product_type', { enum: PRODUCT_TYPES }).notNull().default('software'),
    keyTag: text('key_tag').notNull(),
    baseCreditCost: integer('base_credit_cost').notNull(),
    creditsPerDay: integer('credits_per_day').notNull().default(10),
    minDays: integer('min_days').notNull().default(1),
    maxDays: integer('max_days').notNull().default(365),
    maxActivations: integer('max_activations').notNull().default(1),
    isActive: integer('is_active', { mode: 'boolean' }).notNull().default(true),
    features: text('features', { mode: 'json' })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    totalGenerated: integer('total_generated').notNull().default(0),
    totalSold: integer('total_sold').notNull().default(0),
    revenue: integer('revenue').notNull().default(0),
    totalActivations: integer('total_activations').notNull().default(0),
    /** How long an offline token of this product lives (1 to 720 hours). */
    offlineTokenHours: integer('offline_token_hours').notNull().default(24),
    /** Until when tokens issued under a longer lifetime may live (the lifetime was shortened). */
    earlierTokensLiveUntil: integer('earlier_tokens_live_until'),
    /** node-locked: a key's devices hold their slots until removed; floating: a device holds a seat while its lease lives. */
    licenseModel: text('license_model', { enum: LICENSE_MODELS }).notNull().default('node-locked'),
    /** A floating seat's lease, renewed by each heartbeat (1 minute to 24 hours). */
    leaseMinutes: integer('lease_minutes').notNull().default(60),
    /** How long a floating seat may be borrowed for offline use (hours; 0: no borrowing). */
    borrowMaxHours: integer('borrow_max_hours').notNull().default(0),
    /** Device removals a key may make per swap window (null: no budget). */
    swapLimit: integer('swap_limit'),
    swapWindowDays: integer('swap_window_days').notNull().default(30),
    /** A trial's length in days (0: no trial). */
    trialDays: integer('trial_days').notNull().default(0),
    /** The named entitlements every key of the product has (lowercase words, like `pro` or `export-pdf`). */
    entitlements: text('entitlements', { mode: 'json' })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    /** The uses each key starts with (null: the product is not metered). */
    usageAllowance: integer('usage_allowance'),
    /** Every usageRefillDays, a key's remaining uses are raised to this many (null: no refill). */
    usageRefillAmount: integer('usage_refill_amount'),
    usageRefillDays: integer('usage_refill_days'),
    /** The uses a trial key of a metered product carries, at most the allowance (0: none); it never refills. */
    trialUsageAllowance: integer('trial_usage_allowance').notNull().default(0),
    /** How its keys end (vocabulary's EXPIRY_MODELS): each key made takes it as its own. */
    expiryModel: text('expiry_model', { enum: EXPIRY_MODELS }).notNull().default('time-limited'),
    createdAt: createdAt(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    uniqueIndex('products_key_tag_unique').on(t.keyTag),
    index('products_active_name_idx').on(t.isActive, t.name),
    check('products_type_check', sql`${t.productType} IN (${sql.raw(sqlList(PRODUCT_TYPES))})`),
    check('products_costs_check', sql`${t.baseCreditCost} >= 0 AND ${t.creditsPerDay} >= 0`),
    check('products_days_check', sql`${t.minDays} >= 1 AND ${t.maxDays} >= ${t.minDays}`),
    check('products_activations_check', sql`${t.maxActivations} >= 1`),
    check('products_offline_token_check', sql`${t.offlineTokenHours} BETWEEN 1 AND 720`),
    check('products_license_model_check', sql`${t.licenseModel} IN (${sql.raw(sqlList(LICENSE_MODELS))})`),
    check('products_expiry_model_check', sql`${t.expiryModel} IN (${sql.raw(sqlList(EXPIRY_MODELS))})`),
    check(
      'products_usage_check',
      sql`(${t.usageAllowance} IS NULL OR ${t.usageAllowance} >= 0) AND (${t.usageRefillAmount} IS NULL) = (${t.usageRefillDays} IS NULL) AND (${t.usageRefillAmount} IS NULL OR ${t.usageRefillAmount} >= 1) AND (${t.usageRefillDays} IS NULL OR ${t.usageRefillDays} BETWEEN 1 AND 365)`,
    ),
    check(
      'products_seats_check',
      sql`${t.leaseMinutes} BETWEEN 1 AND 1440 AND ${t.borrowMaxHours} BETWEEN 0 AND 720 AND ${t.swapWindowDays} BETWEEN 1 AND 365 AND (${t.swapLimit} IS NULL OR ${t.swapLimit} BETWEEN 0 AND 100) AND ${t.trialDays} BETWEEN 0 AND 365`,
    ),
  ],
);

export const licenseKeys = sqliteTable(
  'license_keys',
  {
    id: text('id').primaryKey(),
    key: text('key').notNull(),
    status: text('status', { enum: KEY_STATUSES }).notNull(),
    productId: text('product_id').notNull(),
    // Snapshot of the product at creation, so a key reads the same after the product changes.
    productName: text('product_name').notNull(),
    productKeyTag: text('product_key_tag').notNull(),
    productType: text('product_type', { enum: PRODUCT_TYPES }).notNull(),
    duration: integer('duration').notNull(),
    maxActivations: integer('max_activations').notNull(),
    purchasedAt: integer('purchased_at', { mode: 'timestamp_ms' }),
    purchasedBy: text('purchased_by'),
    createdBy: text('created_by'),
    purchasePrice: integer('purchase_price').notNull().default(0),
    /**
     * The account whose credits paid for the key (the buyer, or the reseller who bought it for them);
     * null for a generated key, a free direct purchase, and keys bought before migration 0007.
     * Inserting a key with a payer writes the payer's debit in the ledger (a trigger, migration 0007).
     */
    paidBy: text('paid_by'),
    revokeReason: text('revoke_reason'),
    revokedAt: integer('revoked_at', { mode: 'timestamp_ms' }),
    firstUsedAt: integer('first_used_at', { mode: 'timestamp_ms' }),
    // Null while a generated key is unactivated; its clock starts at the first activation.
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }),
    generationMethod: text('generation_method', { enum: GENERATION_METHODS }).notNull().default('automatic'),
    lastDeviceRemovalAt: integer('last_device_removal_at', { mode: 'timestamp_ms' }),
    /** How often the key was given to another account (a setting may limit it). */
    transferCount: integer('transfer_count').notNull().default(0),
    /** A trial started by a device (POST /api/v1/licenses/trial), not sold. */
    isTrial: integer('is_trial', { mode: 'boolean' }).notNull().default(false),
    /** Entitlements the owner granted this key beyond its product's. */
    entitlements: text('entitlements', { mode: 'json' })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    /**
     * The uses left as of `usagePeriodStart` (null: none used yet, the product's allowance). A refill
     * due since is applied when the key is next read or debited (licensing/usage.ts), so no job runs.
     */
    usageRemaining: integer('usage_remaining'),
    /** When the key's current refill period began: its first debit or top-up, moved on by whole periods. */
    usagePeriodStart: integer('usage_period_start'),
    createdAt: createdAt(),
    /** When the owner imported the key from another system or an export (null: made here). */
    importedAt: integer('imported_at', { mode: 'timestamp_ms' }),
    /**
     * How the key ends, its product's model when it was made (a perpetual key has no expiry: its
     * first activation starts no clock, trigger activations_start_key_and_count_on_product, 0027).
     */
    expiryModel: text('expiry_model', { enum: EXPIRY_MODELS }).notNull().default('time-limited'),
    /** Auto-renewal from its customer's credits: the days each renewal adds (null: off). */
    autoRenewDays: integer('auto_renew_days'),
    /** The cron could not auto-renew the key for its current expiry (the balance did not cover it); cleared by any renewal. */
    autoRenewFailedAt: integer('auto_renew_failed_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    uniqueIndex('license_keys_key_unique').on(t.key),
    // Lists run newest first with the id as the tie-break; with the id in the index, a page's ids
    // come from the index alone and only the page's own rows are read.
    // With the key and the product's name and keyTag, a customer's search (My Keys) is answered
    // from the index alone: no read of each of their keys' rows to match the text.
    // The buyer, creator and product indexes also hold the status and the expiry: a list of one
    // customer's, one reseller's or one product's keys, and an admin search by product or by user,
    // filters by status (the effective one: the expiry decides) and finds its page from the index
    // alone, without reading each matching key's row. The product index holds the status before the
    // creation (0034): the owner's search and product list take a product's newest keys of one status
    // straight from it, however many keys of other statuses the product has (modules/keys/admin-keys.ts).
    index('license_keys_buyer_idx').on(t.purchasedBy, t.createdAt, t.id, t.key, t.productName, t.productKeyTag, t.status, t.expiresAt),
    index('license_keys_creator_idx').on(t.createdBy, t.createdAt, t.id, t.status, t.expiresAt),
    index('license_keys_product_idx').on(t.productId, t.status, t.createdAt, t.id, t.expiresAt),
    index('license_keys_status_idx').on(t.status, t.createdAt, t.id),
    index('license_keys_created_idx').on(t.createdAt, t.id),
    index('license_keys_expiry_idx').on(t.status, t.expiresAt),
    check('license_keys_status_check', sql`${t.status} IN (${sql.raw(sqlList(KEY_STATUSES))})`),
    check('license_keys_method_check', sql`${t.generationMethod} IN (${sql.raw(sqlList(GENERATION_METHODS))})`),
    check('license_keys_duration_check', sql`${t.duration} >= 1 AND ${t.maxActivations} >= 1`),
    check('license_keys_usage_check', sql`${t.usageRemaining} IS NULL OR ${t.usageRemaining} >= 0`),
    check('license_keys_expiry_model_check', sql`${t.expiryModel} IN (${sql.raw(sqlList(EXPIRY_MODELS))})`),
    check('license_keys_auto_renew_check', sql`${t.autoRenewDays} IS NULL OR ${t.autoRenewDays} >= 1`),
  ],
);

/**
 * A key's renewals (issue 43): each extension of its expiry, by whom (`source`), paid by whom and how
 * much (its ledger row, kind 'renewal', names the key), from which expiry to which; and each
 * auto-renewal the customer's balance did not cover (`outcome` failed: the key runs out and its
 * customer is told; a later mail job reads these rows). Written in the batch of the renewal. The
 * cron's rows are unique per key, expiry renewed from and outcome, so two overlapping runs renew a
 * period (and report its failure) once.
 */
export const keyRenewals = sqliteTable(
  'key_renewals',
  {
    id: text('id').primaryKey(),
    keyId: text('key_id')
      .notNull()
      .references(() => licenseKeys.id, { onDelete: 'cascade' }),
    source: text('source', { enum: RENEWAL_SOURCES }).notNull(),
    outcome: text('outcome', { enum: RENEWAL_OUTCOMES }).notNull().default('renewed'),
    actorId: text('actor_id'),
    /** Whose credits paid (null: nobody, the owner's free extension). */
    payerId: text('payer_id'),
    days: integer('days').notNull(),
    credits: integer('credits').notNull().default(0),
    /** The expiry it renewed from (null: a key that had none) and the new one (null for a failure). */
    fromExpiresAt: integer('from_expires_at', { mode: 'timestamp_ms' }),
    toExpiresAt: integer('to_expires_at', { mode: 'timestamp_ms' }),
    at: integer('at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('key_renewals_key_idx').on(t.keyId, t.at, t.id),
    uniqueIndex('key_renewals_auto_period_unique')
      .on(t.keyId, t.fromExpiresAt, t.outcome)
      .where(sql`${t.source} = 'auto'`),
    check('key_renewals_source_check', sql`${t.source} IN (${sql.raw(sqlList(RENEWAL_SOURCES))})`),
    check('key_renewals_outcome_check', sql`${t.outcome} IN (${sql.raw(sqlList(RENEWAL_OUTCOMES))})`),
    check('key_renewals_days_check', sql`${t.days} >= 1 AND ${t.credits} >= 0`),
  ],
);

export type DeviceInfo = {
  manufacturer?: string;
  model?: string;
  device?: string;
  cpuAbi?: string;
  fingerprint?: string;
};

export const activations = sqliteTable(
  'activations',
  {
    id: text('id').primaryKey(),
    keyId: text('key_id')
      .notNull()
      .references(() => licenseKeys.id, { onDelete: 'cascade' }),
    deviceFingerprint: text('device_fingerprint').notNull(),
    deviceInfo: text('device_info', { mode: 'json' }).$type<DeviceInfo | null>(),
    activatedAt: integer('activated_at', { mode: 'timestamp_ms' }).notNull(),
    lastUsed: integer('last_used', { mode: 'timestamp_ms' }),
    /** A floating seat's lease: the seat is this device's until then (null: a node-locked device, held until removed). */
    leaseExpiresAt: integer('lease_expires_at', { mode: 'timestamp_ms' }),
    /** Until when the floating seat is borrowed for offline use (the lease lasts at least as long). */
    borrowedUntil: integer('borrowed_until', { mode: 'timestamp_ms' }),
    /**
     * Its customer asked to replace it (My Keys), its swap already counted: it works on until the
     * next device activates the key, which takes its place in the same statement (trigger, 0020).
     */
    replacePendingAt: integer('replace_pending_at', { mode: 'timestamp_ms' }),
  },
  (t) => [uniqueIndex('activations_key_device_unique').on(t.keyId, t.deviceFingerprint)],
);

/**
 * A slot a device gave back that stays taken until the longest offline token the device may hold
 * has expired (`freesAt`), so the device limit holds offline too. Counted by the activation's insert.
 */
export const heldSlots = sqliteTable(
  'held_slots',
  {
    id: text('id').primaryKey(),
    keyId: text('key_id')
      .notNull()
      .references(() => licenseKeys.id, { onDelete: 'cascade' }),
    deviceFingerprint: text('device_fingerprint').notNull(),
    releasedAt: integer('released_at', { mode: 'timestamp_ms' }).notNull(),
    freesAt: integer('frees_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [uniqueIndex('held_slots_key_device_unique').on(t.keyId, t.deviceFingerprint), index('held_slots_frees_idx').on(t.freesAt)],
);

/**
 * A key's history of what its holders and the owner did to it: a transfer (from, to) or a
 * regeneration (detail: the reason, the devices freed), written in the batch of the change; and its
 * devices' activations (detail: the device), written by the activation's insert (trigger, 0023).
 */
export const keyEvents = sqliteTable(
  'key_events',
  {
    id: text('id').primaryKey(),
    keyId: text('key_id')
      .notNull()
      .references(() => licenseKeys.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: KEY_EVENT_KINDS }).notNull(),
    at: integer('at', { mode: 'timestamp_ms' }).notNull(),
    actorId: text('actor_id'),
    fromUserId: text('from_user_id'),
    toUserId: text('to_user_id'),
    detail: text('detail', { mode: 'json' }).$type<Record<string, unknown> | null>(),
  },
  (t) => [
    index('key_events_key_idx').on(t.keyId, t.at, t.id),
    // A transfer's two sides: only transfers have them, so the activations (most of the history) add no entry.
    index('key_events_from_idx')
      .on(t.fromUserId, t.at)
      .where(sql`${t.fromUserId} IS NOT NULL`),
    index('key_events_to_idx')
      .on(t.toUserId, t.at)
      .where(sql`${t.toUserId} IS NOT NULL`),
    check('key_events_kind_check', sql`${t.kind} IN (${sql.raw(sqlList(KEY_EVENT_KINDS))})`),
  ],
);

/** A key's earlier values, replaced by a regeneration: the licensing API answers them KEY_REGENERATED. */
/**
 * The shop's counts the owner's screens show, kept by the triggers of 0032 in the statement that
 * changes a row: keys by stored status (`key_status`) and accounts by role (`user_role`), one row
 * each, so the Overview and the lists read a few rows instead of walking the tables. A key whose
 * expiry passed before the cron marked it is still counted under its stored status: the readers
 * move it to expired with a short range of license_keys_expiry_idx (modules/keys/key-counts.ts).
 */
export const shopCounts = sqliteTable(
  'shop_counts',
  {
    kind: text('kind', { enum: ['key_status', 'user_role'] }).notNull(),
    value: text('value').notNull(),
    n: integer('n').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.kind, t.value] })],
);

/**
 * Keys by product and stored status, kept by the triggers of 0034 in the statement that changes a
 * key, so the owner's search by product (and list of one product) totals a product's keys from a row
 * per status instead of walking them. As with shop_counts, a key whose expiry passed before the cron
 * marked it is counted under its stored status; the readers move it to expired (key-counts.ts).
 */
export const productKeyCounts = sqliteTable(
  'product_key_counts',
  {
    productId: text('product_id').notNull(),
    status: text('status', { enum: KEY_STATUSES }).notNull(),
    n: integer('n').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.productId, t.status] })],
);

/**
 * The keys whose value has a dash, by the part before the first dash (`tag`: a generated key's
 * product keyTag when it was made) and by product, kept by the triggers of 0034. The owner's search
 * for a keyTag matches that product by the tag and, by key prefix, every key starting with it; this
 * says whether any key under the tag belongs to another product (a tag changed and taken again, an
 * imported key), so the search walks the tag's keys only then (modules/keys/admin-keys.ts).
 */
export const keyTagCounts = sqliteTable(
  'key_tag_counts',
  {
    tag: text('tag').notNull(),
    productId: text('product_id').notNull(),
    n: integer('n').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tag, t.productId] })],
);

/**
 * System Analytics per UTC day (`day`: days since 1970-01-01), kept by the triggers of 0032 as the
 * rows it counts go in and out, so a period's figures read a row a day instead of the period's
 * keys, ledger, accounts and devices: the purchases' revenue (their ledger debits), the accounts
 * opened and the devices activated that still exist.
 */
export const dailyFigures = sqliteTable('daily_figures', {
  day: integer('day').primaryKey(),
  revenue: integer('revenue').notNull().default(0),
  newUsers: integer('new_users').notNull().default(0),
  activations: integer('activations').notNull().default(0),
});

/** Keys sold per UTC day and product, and the credits paid for them (0032's triggers), with the product's name and tag as its latest key had them. */
export const dailySales = sqliteTable(
  'daily_sales',
  {
    day: integer('day').notNull(),
    productId: text('product_id').notNull(),
    productName: text('product_name').notNull(),
    productKeyTag: text('product_key_tag').notNull(),
    keysSold: integer('keys_sold').notNull().default(0),
    revenue: integer('revenue').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.day, t.productId] })],
);

/**
 * A reseller's figures (My Statistics and the owner's comparison), kept by the triggers of 0033 in
 * the statement that changes a row, so the statistics read a row per day and per product instead of
 * the reseller's ledger, customers and keys. Every account that spends credits has its rows (any
 * account may become a reseller, and its statistics then count what it bought before): all time,
 * its customers (users.reseller_id), the credits earned in commissions and spent on keys, and the
 * commissions (its customers' purchases). The five tables of 0033 are WITHOUT ROWID (drizzle does not
 * model it; the migration says it): a seek by primary key reads one row, not an index entry and a row.
 */
export const resellerFigures = sqliteTable('reseller_figures', {
  resellerId: text('reseller_id').primaryKey(),
  customers: integer('customers').notNull().default(0),
  earned: integer('earned').notNull().default(0),
  spent: integer('spent').notNull().default(0),
  customerPurchases: integer('customer_purchases').notNull().default(0),
});

/** A reseller's keys for customers (created_by, generation_method 'reseller') by stored status (0033's triggers). */
export const resellerKeyCounts = sqliteTable(
  'reseller_key_counts',
  {
    resellerId: text('reseller_id').notNull(),
    status: text('status', { enum: KEY_STATUSES }).notNull(),
    n: integer('n').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.resellerId, t.status] })],
);

/** A reseller's credits per UTC day (`day`: days since 1970-01-01): earned in commissions, spent on keys (0033's triggers). */
export const resellerDays = sqliteTable(
  'reseller_days',
  {
    resellerId: text('reseller_id').notNull(),
    day: integer('day').notNull(),
    earned: integer('earned').notNull().default(0),
    spent: integer('spent').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.resellerId, t.day] })],
);

/**
 * The products a reseller's ledger rows touched, with the name and tag of their keys (the greatest,
 * as the statistics grouped them). `productId` '' (name null): the rows whose key was gone when they
 * were written ("Deleted keys").
 */
export const resellerProducts = sqliteTable(
  'reseller_products',
  {
    resellerId: text('reseller_id').notNull(),
    productId: text('product_id').notNull(),
    productName: text('product_name'),
    productKeyTag: text('product_key_tag'),
  },
  (t) => [primaryKey({ columns: [t.resellerId, t.productId] })],
);

/**
 * A reseller's running totals by product through each UTC day they had a ledger row of it: the
 * rows, credits earned and spent, keys bought for customers and commissions, from the first row
 * on. A period's figures are the totals through its last day minus those through the day before
 * its first: two rows a product, however much was sold. A row dated in the past (an import) adds
 * to its day and every later day of the product.
 */
export const resellerProductDays = sqliteTable(
  'reseller_product_days',
  {
    resellerId: text('reseller_id').notNull(),
    productId: text('product_id').notNull(),
    day: integer('day').notNull(),
    ledgerRows: integer('ledger_rows').notNull().default(0),
    earned: integer('earned').notNull().default(0),
    spent: integer('spent').notNull().default(0),
    keysForCustomers: integer('keys_for_customers').notNull().default(0),
    customerPurchases: integer('customer_purchases').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.resellerId, t.productId, t.day] })],
);

export const retiredKeys = sqliteTable(
  'retired_keys',
  {
    key: text('key').primaryKey(),
    keyId: text('key_id')
      .notNull()
      .references(() => licenseKeys.id, { onDelete: 'cascade' }),
    retiredAt: integer('retired_at', { mode: 'timestamp_ms' }).notNull(),
  },
  // A key's deletion finds its retired values by this index, not by a scan.
  (t) => [index('retired_keys_key_idx').on(t.keyId)],
);

/**
 * A device taken off a key by its customer, its app or the API (never the owner's): counted against
 * the product's swap budget (swapLimit per swapWindowDays) by the removal's own conditional DELETE.
 */
export const deviceRemovals = sqliteTable(
  'device_removals',
  {
    id: text('id').primaryKey(),
    keyId: text('key_id')
      .notNull()
      .references(() => licenseKeys.id, { onDelete: 'cascade' }),
    deviceFingerprint: text('device_fingerprint').notNull(),
    removedAt: integer('removed_at', { mode: 'timestamp_ms' }).notNull(),
    /** A swap: the device's slot went to another device (the API's replace-device, My Keys' replace). */
    replaced: integer('replaced', { mode: 'boolean' }).notNull().default(false),
    /**
     * Spent from the key's swap budget: every removal by the key's holder or their app is; the owner's
     * removals and a transfer's are not (licensing/device-exit.ts says why).
     */
    counted: integer('counted', { mode: 'boolean' }).notNull().default(true),
  },
  (t) => [index('device_removals_key_idx').on(t.keyId, t.removedAt)],
);

/**
 * The UTC days a key's device validated, with that day's count of validations: one row per key,
 * device and day, added to by the isolate's batch of touches (platform/touches.ts), never by the
 * validation's own statement. Kept after the device goes, for the key's history.
 */
export const deviceDays = sqliteTable(
  'device_days',
  {
    keyId: text('key_id')
      .notNull()
      .references(() => licenseKeys.id, { onDelete: 'cascade' }),
    deviceFingerprint: text('device_fingerprint').notNull(),
    /** Days since 1970-01-01 (UTC). */
    day: integer('day').notNull(),
    validations: integer('validations').notNull(),
    lastAt: integer('last_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.day, t.deviceFingerprint] })],
);

/**
 * A key's usage history: each debit by its app (`consume`, with the app's Idempotency-Key, unique per
 * key, so a debit repeated is found, not made again) and each top-up by the owner, with the uses left
 * after it. Per-product usage is summed from here (analytics).
 */
export const usageEvents = sqliteTable(
  'usage_events',
  {
    id: text('id').primaryKey(),
    keyId: text('key_id')
      .notNull()
      .references(() => licenseKeys.id, { onDelete: 'cascade' }),
    productId: text('product_id').notNull(),
    kind: text('kind', { enum: USAGE_EVENT_KINDS }).notNull(),
    amount: integer('amount').notNull(),
    remaining: integer('remaining').notNull(),
    idempotencyKey: text('idempotency_key'),
    actorId: text('actor_id'),
    at: integer('at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('usage_events_idempotency_unique').on(t.keyId, t.idempotencyKey),
    index('usage_events_key_idx').on(t.keyId, t.at),
    index('usage_events_product_idx').on(t.productId, t.at),
    check('usage_events_kind_check', sql`${t.kind} IN (${sql.raw(sqlList(USAGE_EVENT_KINDS))})`),
    check('usage_events_amount_check', sql`${t.amount} >= 1 AND ${t.remaining} >= 0`),
  ],
);

/**
 * An air-gapped activation: a device's request (its one-time nonce and the public key it will sign
 * its deactivation proof with) turned by the key's holder into a signed response. A nonce is
 * accepted once per key; `deactivatedAt` is set when the device's signed proof freed its slot.
 */
export const offlineActivations = sqliteTable(
  'offline_activations',
  {
    id: text('id').primaryKey(),
    keyId: text('key_id')
      .notNull()
      .references(() => licenseKeys.id, { onDelete: 'cascade' }),
    deviceFingerprint: text('device_fingerprint').notNull(),
    nonce: text('nonce').notNull(),
    /** The device's Ed25519 public key (base64url `x`), from its request. */
    deviceKey: text('device_key').notNull(),
    issuedAt: integer('issued_at', { mode: 'timestamp_ms' }).notNull(),
    deactivatedAt: integer('deactivated_at', { mode: 'timestamp_ms' }),
    /**
     * The activation this request made, when the device took a new slot by it: only that one can its
     * signed proof free at once. A device already activated online may hold online tokens.
     */
    activationId: text('activation_id'),
  },
  (t) => [
    uniqueIndex('offline_activations_key_nonce_unique').on(t.keyId, t.nonce),
    index('offline_activations_device_idx').on(t.keyId, t.deviceFingerprint),
  ],
);

/** A device's trial of a product: one per device and product, ever; `keyId` is the trial key it got. */
export const trials = sqliteTable(
  'trials',
  {
    id: text('id').primaryKey(),
    productId: text('product_id').notNull(),
    deviceFingerprint: text('device_fingerprint').notNull(),
    keyId: text('key_id').references(() => licenseKeys.id, { onDelete: 'set null' }),
    startedAt: integer('started_at', { mode: 'timestamp_ms' }).notNull(),
    /** The paid key the device activated afterwards. */
    convertedKeyId: text('converted_key_id'),
  },
  (t) => [uniqueIndex('trials_product_device_unique').on(t.productId, t.deviceFingerprint), index('trials_key_idx').on(t.keyId)],
);

// Every movement of credits or USD. For each user, the sum of deltas equals the balance.
export const ledger = sqliteTable(
  'ledger',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    actorId: text('actor_id'),
    kind: text('kind').notNull(),
    creditsDelta: integer('credits_delta').notNull().default(0),
    usdCentsDelta: integer('usd_cents_delta').notNull().default(0),
    reference: text('reference'),
    note: text('note'),
    createdAt: createdAt(),
  },
  (t) => [
    index('ledger_user_idx').on(t.userId, t.createdAt),
    index('ledger_kind_created_idx').on(t.kind, t.createdAt),
    // A Checkout Session credits at most once, however often Stripe delivers its events.
    uniqueIndex('ledger_topup_session_unique')
      .on(t.reference)
      .where(sql`${t.kind} = 'topup'`),
  ],
);

export const securityLog = sqliteTable(
  'security_log',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    event: text('event').notNull(),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    createdAt: createdAt(),
  },
  (t) => [index('security_log_user_idx').on(t.userId, t.createdAt)],
);

export const auditLog = sqliteTable(
  'audit_log',
  {
    id: text('id').primaryKey(),
    actorId: text('actor_id'),
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    details: text('details', { mode: 'json' }).$type<Record<string, unknown> | null>(),
    ipAddress: text('ip_address'),
    createdAt: createdAt(),
  },
  (t) => [
    index('audit_log_created_idx').on(t.createdAt),
    index('audit_log_action_idx').on(t.action, t.createdAt),
    index('audit_log_actor_idx').on(t.actorId, t.createdAt),
    // A key's history reads the owner's acts on it (a device removed) by the key.
    index('audit_log_target_idx').on(t.targetId, t.createdAt),
  ],
);

export const recoveryTokens = sqliteTable(
  'recovery_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    usedAt: integer('used_at', { mode: 'timestamp_ms' }),
    createdAt: createdAt(),
  },
  (t) => [index('recovery_tokens_user_idx').on(t.userId), uniqueIndex('recovery_tokens_hash_unique').on(t.tokenHash)],
);

export const passwordResetTokens = sqliteTable(
  'password_reset_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    usedAt: integer('used_at', { mode: 'timestamp_ms' }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('password_reset_tokens_hash_unique').on(t.tokenHash), index('password_reset_tokens_user_idx').on(t.userId)],
);

/** Links that prove an email address (migration 0018): one use, stored as a hash, for the address they were sent to. */
export const emailVerificationTokens = sqliteTable(
  'email_verification_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    tokenHash: text('token_hash').notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    usedAt: integer('used_at', { mode: 'timestamp_ms' }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('email_verification_tokens_hash_unique').on(t.tokenHash), index('email_verification_tokens_user_idx').on(t.userId)],
);

export const apiTokens = sqliteTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    role: text('role', { enum: ROLES }).notNull(),
    readOnly: integer('read_only', { mode: 'boolean' }).notNull().default(false),
    lastUsedAt: integer('last_used_at', { mode: 'timestamp_ms' }),
    createdAt: createdAt(),
    /** The account's credential epoch the token was made (or kept) under; see users.credentialEpoch. */
    credentialEpoch: integer('credential_epoch').notNull().default(0),
  },
  (t) => [uniqueIndex('api_tokens_hash_unique').on(t.tokenHash), index('api_tokens_user_idx').on(t.userId)],
);

/**
 * Signed-in sessions. The session token (a JWT) names a row here; the row is the authority: a
 * request whose row is gone, expired, idle past the owner's limit or from an older credential epoch
 * is refused, and a write by it commits nothing (migration 0016, platform/db/session.ts).
 */
export const sessions = sqliteTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    credentialEpoch: integer('credential_epoch').notNull(),
    createdAt: createdAt(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    lastActive: integer('last_active', { mode: 'timestamp_ms' }).notNull(),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    location: text('location'),
  },
  (t) => [index('sessions_user_idx').on(t.userId, t.lastActive)],
);

// Exact throttling counters: one row per bucket and fixed window.
export const rateLimits = sqliteTable(
  'rate_limits',
  {
    bucket: text('bucket').notNull(),
    windowStart: integer('window_start').notNull(),
    count: integer('count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.bucket, t.windowStart] }), index('rate_limits_window_idx').on(t.windowStart)],
);

// Failed password checks per account across every address (the email as typed, so an unknown
// address is counted like a real one). Past a few free failures each one locks password checks for
// the account for twice as long as the last; a quiet day forgets them. Times are epoch ms.
export const signInFailures = sqliteTable(
  'sign_in_failures',
  {
    account: text('account').primaryKey(),
    failures: integer('failures').notNull(),
    lockedUntil: integer('locked_until').notNull(),
    lastFailureAt: integer('last_failure_at').notNull(),
  },
  (t) => [index('sign_in_failures_last_idx').on(t.lastFailureAt)],
);

// The first answer to a purchase sent with an Idempotency-Key, replayed on retry.
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    userId: text('user_id').notNull(),
    key: text('key').notNull(),
    response: text('response').notNull(),
    status: integer('status').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] }), index('idempotency_keys_created_idx').on(t.createdAt)],
);

/**
 * A card top-up through Stripe Checkout, keyed by the Checkout Session's id. `pending` until Stripe's
 * verified webhook says it was paid; the credit itself is the `topup` ledger row (at most one per
 * session: ledger_topup_session_unique). `refunded` once any part was refunded: `refunded_cents` is
 * Stripe's running total, `refund_owed_cents` what the balance could not give back.
 */
export const payments = sqliteTable(
  'payments',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').notNull(),
    amountCents: integer('amount_cents').notNull(),
    status: text('status', { enum: PAYMENT_STATUSES }).notNull().default('pending'),
    paymentIntentId: text('payment_intent_id'),
    refundedCents: integer('refunded_cents').notNull().default(0),
    refundOwedCents: integer('refund_owed_cents').notNull().default(0),
    disputeId: text('dispute_id'),
    disputedAt: integer('disputed_at', { mode: 'timestamp_ms' }),
    /** open while Stripe decides (its value is taken and held), then won (given back) or lost. */
    disputeStatus: text('dispute_status', { enum: DISPUTE_STATUSES }),
    /** The amount the open or lost dispute took back (0 once won). */
    disputeCents: integer('dispute_cents').notNull().default(0),
    /** A first-time payer's top-up cannot be exchanged before this (the owner's hold, migration 0017). */
    heldUntil: integer('held_until', { mode: 'timestamp_ms' }),
    paidAt: integer('paid_at', { mode: 'timestamp_ms' }),
    createdAt: createdAt(),
  },
  (t) => [
    index('payments_user_idx').on(t.userId, t.createdAt, t.id),
    index('payments_user_owed_idx')
      .on(t.userId)
      .where(sql`${t.refundOwedCents} > 0`),
    index('payments_user_held_idx')
      .on(t.userId, t.heldUntil)
      .where(sql`${t.heldUntil} IS NOT NULL`),
    index('payments_status_idx').on(t.status, t.createdAt, t.id),
    index('payments_created_idx').on(t.createdAt, t.id),
    uniqueIndex('payments_payment_intent_unique').on(t.paymentIntentId),
    check('payments_status_check', sql`${t.status} IN (${sql.raw(sqlList(PAYMENT_STATUSES))})`),
    check('payments_amounts_check', sql`${t.amountCents} > 0 AND ${t.refundedCents} >= 0 AND ${t.refundOwedCents} >= 0`),
  ],
);

/**
 * One refund or dispute of a card payment, or a won dispute's return (migration 0017): what it took
 * from the USD balance (`usdCents`) and the credits (`credits`), and what it left owed (`owedCents`;
 * negative for a return). Its ledger row (card_reversal or dispute_return) moves the balances.
 */
export const paymentReversals = sqliteTable(
  'payment_reversals',
  {
    id: text('id').primaryKey(),
    paymentId: text('payment_id').notNull(),
    userId: text('user_id').notNull(),
    kind: text('kind', { enum: ['refund', 'dispute', 'dispute_won'] }).notNull(),
    amountCents: integer('amount_cents').notNull(),
    usdCents: integer('usd_cents').notNull(),
    credits: integer('credits').notNull(),
    owedCents: integer('owed_cents').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('payment_reversals_payment_idx').on(t.paymentId, t.createdAt),
    check('payment_reversals_kind_check', sql`${t.kind} IN ('refund', 'dispute', 'dispute_won')`),
  ],
);

/**
 * Commissions taken back (issue 42): a card reversal that leaves its customer owing takes back the
 * commission each of their purchases since the payment earned a reseller, one row per commission
 * ledger row (so none is taken twice): what the reseller's credits covered (`taken`, with its
 * card_reversal ledger row) and what they still owe (`owed`, credits; spending is blocked while any
 * is owed, as a customer's owed payment blocks theirs). A won dispute gives its rows back; the
 * owner's write-off of the payment writes their owed amount off too (modules/billing/reversals.ts).
 */
export const commissionClawbacks = sqliteTable(
  'commission_clawbacks',
  {
    /** The commission's ledger row. */
    commissionId: text('commission_id').primaryKey(),
    reversalId: text('reversal_id').notNull(),
    paymentId: text('payment_id').notNull(),
    resellerId: text('reseller_id').notNull(),
    customerId: text('customer_id').notNull(),
    credits: integer('credits').notNull(),
    taken: integer('taken').notNull(),
    owed: integer('owed').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('commission_clawbacks_reversal_idx').on(t.reversalId),
    index('commission_clawbacks_payment_idx').on(t.paymentId),
    index('commission_clawbacks_owed_idx')
      .on(t.resellerId)
      .where(sql`${t.owed} > 0`),
  ],
);

/**
 * Who a customer's reseller was, and when (issue 42): one row per stretch, kept by triggers on
 * users.reseller_id (0027), so each reseller's figures count the purchases made while the customer
 * was theirs. `until` is null while the stretch lasts.
 */
export const customerResellers = sqliteTable(
  'customer_resellers',
  {
    id: text('id').primaryKey(),
    customerId: text('customer_id').notNull(),
    resellerId: text('reseller_id').notNull(),
    since: integer('since').notNull(),
    until: integer('until'),
  },
  (t) => [
    index('customer_resellers_reseller_idx').on(t.resellerId, t.customerId),
    index('customer_resellers_customer_idx').on(t.customerId, t.since),
  ],
);

/** Refund and dispute events that came before their payment's credit; applied right after it. */
export const stripeParkedEvents = sqliteTable(
  'stripe_parked_events',
  {
    /** Stripe's event id. */
    id: text('id').primaryKey(),
    paymentIntentId: text('payment_intent_id').notNull(),
    type: text('type').notNull(),
    /** The event's data.object, as JSON text. */
    object: text('object').notNull(),
    eventCreated: integer('event_created').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('stripe_parked_events_intent_idx').on(t.paymentIntentId, t.eventCreated)],
);

// Outbound webhooks (migration 0014). Endpoints are the shop's (any owner manages them all).
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    url: text('url').notNull(),
    description: text('description').notNull().default(''),
    /** The event types it receives, as a JSON array (the outbox statement matches with json_each). */
    events: text('events', { mode: 'json' }).$type<string[]>().notNull(),
    /** The signing secret, sealed (platform/secret-box.ts); shown in the clear only when made. */
    secret: text('secret').notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    disabledReason: text('disabled_reason'),
    /** The first failure since the last success; an endpoint failing for days is disabled. */
    failingSince: integer('failing_since', { mode: 'timestamp_ms' }),
    createdBy: text('created_by'),
    createdAt: createdAt(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }),
  },
  (t) => [index('webhook_endpoints_enabled_idx').on(t.enabled)],
);

/**
 * Every mail KeyPanel sends, from the moment it is decided (a row written with what caused it) to
 * its delivery by the mail queue's consumer, which writes it from `kind` and `data` in the
 * recipient's account as it is then: its state, attempts and the mail API's last status.
 * `dedupeKey` makes it once per event (a reminder once per key, expiry and day, whatever the cron
 * does). `data` is cleared once the mail is sent: it may carry a live link.
 */
export const mails = sqliteTable(
  'mails',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: MAIL_KINDS }).notNull(),
    /** The account it is for (its address read at sending), or null for an address of its own (`toEmail`). */
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    toEmail: text('to_email'),
    /** What the mail says, as JSON: the kind's facts (a key, a link), written into words when it is sent. */
    data: text('data', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    dedupeKey: text('dedupe_key'),
    state: text('state', { enum: MAIL_STATES }).notNull().default('queued'),
    /** The subject it went with, once written (the admin panel lists it). */
    subject: text('subject'),
    attempts: integer('attempts').notNull().default(0),
    /** The mail API's last HTTP status (null: no answer, or not tried yet). */
    providerStatus: integer('provider_status'),
    lastError: text('last_error'),
    createdAt: createdAt(),
    sentAt: integer('sent_at', { mode: 'timestamp_ms' }),
    /** When it was put on the queue; queued rows never put there are re-enqueued by the cron. */
    dispatchedAt: integer('dispatched_at', { mode: 'timestamp_ms' }),
    /** A consumer is sending it until then: another delivery of the same message waits, so it goes once. */
    sendingUntil: integer('sending_until', { mode: 'timestamp_ms' }),
  },
  (t) => [
    uniqueIndex('mails_dedupe_unique').on(t.dedupeKey),
    index('mails_created_idx').on(t.createdAt),
    index('mails_state_idx').on(t.state, t.createdAt),
    index('mails_user_idx').on(t.userId, t.createdAt),
    check('mails_kind_check', sql`${t.kind} IN (${sql.raw(sqlList(MAIL_KINDS))})`),
    check('mails_state_check', sql`${t.state} IN (${sql.raw(sqlList(MAIL_STATES))})`),
    check('mails_recipient_check', sql`${t.userId} IS NOT NULL OR ${t.toEmail} IS NOT NULL`),
  ],
);

// The outbox: written in the same batch as the change, put on the queue after the commit.
export const webhookEvents = sqliteTable(
  'webhook_events',
  {
    id: text('id').primaryKey(),
    type: text('type').notNull(),
    /** The event's `data`, as JSON text. */
    data: text('data').notNull(),
    /** Set for an event meant for one endpoint only (webhook.test). */
    endpointId: text('endpoint_id'),
    createdAt: createdAt(),
    /** When its deliveries were made; NULL rows older than a few minutes are re-enqueued by the cron. */
    dispatchedAt: integer('dispatched_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    index('webhook_events_undispatched_idx')
      .on(t.createdAt)
      .where(sql`${t.dispatchedAt} IS NULL`),
    index('webhook_events_created_idx').on(t.createdAt),
  ],
);

export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    /** The `webhook-id` header: the same for every attempt of this delivery. */
    id: text('id').primaryKey(),
    eventId: text('event_id')
      .notNull()
      .references(() => webhookEvents.id, { onDelete: 'cascade' }),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    status: text('status', { enum: WEBHOOK_DELIVERY_STATUSES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    responseStatus: integer('response_status'),
    /** The first KB of the last response. */
    responseBody: text('response_body'),
    /** Why the last attempt failed when there was no response (timeout, refused, disabled endpoint). */
    error: text('error'),
    durationMs: integer('duration_ms'),
    lastAttemptAt: integer('last_attempt_at', { mode: 'timestamp_ms' }),
    nextAttemptAt: integer('next_attempt_at', { mode: 'timestamp_ms' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_event_endpoint_unique').on(t.eventId, t.endpointId),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.createdAt, t.id),
    check('webhook_deliveries_status_check', sql`${t.status} IN ('pending', 'delivered', 'failed')`),
  ],
);

/** The most of a receiver's answer kept per attempt: its first KB, in bytes of UTF-8. */
export const WEBHOOK_ANSWER_KEEP_BYTES = 1024;

// Every attempt of a delivery (migration 0019), written in the batch that records its outcome on the
// delivery; the delivery's own response columns repeat the last one. Gone with the delivery (the
// cascade from its endpoint, or the cron's pruning of events older than 30 days).
export const webhookDeliveryAttempts = sqliteTable(
  'webhook_delivery_attempts',
  {
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    /** 1 for the delivery's first attempt; counts on through retries and redeliveries (its `attempts` then). */
    attempt: integer('attempt').notNull(),
    startedAt: integer('started_at', { mode: 'timestamp_ms' }).notNull(),
    /** The HTTP status code; NULL when no answer came (then `error` says why). */
    responseStatus: integer('response_status'),
    /** The first KB of the answer's body, cut on a character boundary. */
    responseBody: text('response_body'),
    /** Why no answer came: a timeout, a refused connection, a name that did not resolve. */
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.deliveryId, t.attempt] }),
    check(
      'webhook_delivery_attempts_answer_check',
      sql`length(CAST(${t.responseBody} AS BLOB)) <= ${sql.raw(String(WEBHOOK_ANSWER_KEEP_BYTES))}`,
    ),
  ],
);

// Two-factor sign-in challenges already used (by their jti), until they expire: each opens one session.
export const spentChallenges = sqliteTable(
  'spent_challenges',
  {
    id: text('id').primaryKey(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('spent_challenges_expires_idx').on(t.expiresAt)],
);
