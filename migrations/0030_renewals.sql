-- Renewals, auto-renewal and licence models (issue 43). A product says how its keys end (expiry_model:
-- time-limited, perpetual or perpetual-fallback), and each key keeps its own copy, as it keeps its
-- name and device limit. A key may auto-renew from its customer credits (auto_renew_days), and
-- key_renewals is the history of its renewals and of the auto-renewals the balance did not cover.
-- The columns go in with ALTER TABLE (each CHECK on its column, as 0020 did), so products and
-- license_keys are not rebuilt under their triggers.
CREATE TABLE `key_renewals` (
	`id` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`source` text NOT NULL,
	`outcome` text DEFAULT 'renewed' NOT NULL,
	`actor_id` text,
	`payer_id` text,
	`days` integer NOT NULL,
	`credits` integer DEFAULT 0 NOT NULL,
	`from_expires_at` integer,
	`to_expires_at` integer,
	`at` integer NOT NULL,
	FOREIGN KEY (`key_id`) REFERENCES `license_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "key_renewals_source_check" CHECK("key_renewals"."source" IN ('customer', 'reseller', 'owner', 'auto')),
	CONSTRAINT "key_renewals_outcome_check" CHECK("key_renewals"."outcome" IN ('renewed', 'failed')),
	CONSTRAINT "key_renewals_days_check" CHECK("key_renewals"."days" >= 1 AND "key_renewals"."credits" >= 0)
);
--> statement-breakpoint
CREATE INDEX `key_renewals_key_idx` ON `key_renewals` (`key_id`,`at`,`id`);--> statement-breakpoint
-- The cron renews a key (or reports that it could not) once per expiry it renews from: a second,
-- overlapping run fails on this index even past the conditional update that guards it first.
CREATE UNIQUE INDEX `key_renewals_auto_period_unique` ON `key_renewals` (`key_id`,`from_expires_at`,`outcome`) WHERE "key_renewals"."source" = 'auto';--> statement-breakpoint
ALTER TABLE `products` ADD `expiry_model` text DEFAULT 'time-limited' NOT NULL CHECK (`expiry_model` IN ('time-limited', 'perpetual', 'perpetual-fallback'));--> statement-breakpoint
ALTER TABLE `license_keys` ADD `expiry_model` text DEFAULT 'time-limited' NOT NULL CHECK (`expiry_model` IN ('time-limited', 'perpetual', 'perpetual-fallback'));--> statement-breakpoint
ALTER TABLE `license_keys` ADD `auto_renew_days` integer CHECK (`auto_renew_days` IS NULL OR `auto_renew_days` >= 1);--> statement-breakpoint
ALTER TABLE `license_keys` ADD `auto_renew_failed_at` integer;--> statement-breakpoint
-- A renewal ledger row takes its credits from the payer as it goes in, as a purchase row does (0005),
-- so the CHECK on users.credits fails the whole renewal when they are not there.
CREATE TRIGGER `ledger_renewal_debits_payer` BEFORE INSERT ON `ledger` WHEN NEW.`kind` = 'renewal' BEGIN UPDATE `users` SET `credits` = `credits` + NEW.`credits_delta` WHERE `id` = NEW.`user_id`; END;--> statement-breakpoint
-- A renewal spends credits like a purchase: refused while the account owes a reversal (0017) or owes commission taken back (0029).
DROP TRIGGER `ledger_spending_guard`;--> statement-breakpoint
CREATE TRIGGER `ledger_spending_guard` BEFORE INSERT ON `ledger` WHEN NEW.`kind` IN ('purchase', 'exchange', 'renewal') BEGIN SELECT RAISE(ABORT, 'SPENDING_BLOCKED_OWED') WHERE EXISTS (SELECT 1 FROM `payments` WHERE `user_id` = NEW.`user_id` AND `refund_owed_cents` > 0) OR EXISTS (SELECT 1 FROM `commission_clawbacks` WHERE `reseller_id` = NEW.`user_id` AND `owed` > 0); SELECT RAISE(ABORT, 'FUNDS_HELD') WHERE NEW.`kind` = 'exchange' AND (SELECT `balance_cents` FROM `users` WHERE `id` = NEW.`user_id`) < (SELECT coalesce(sum(`amount_cents` - `refunded_cents` - `dispute_cents`), 0) FROM `payments` WHERE `user_id` = NEW.`user_id` AND `held_until` > NEW.`created_at`); END;
-- What a renewal earned counts on its key product revenue (the key is the row reference).
CREATE TRIGGER `ledger_renewal_counts_on_product` AFTER INSERT ON `ledger` WHEN NEW.`kind` = 'renewal' BEGIN UPDATE `products` SET `revenue` = `revenue` - NEW.`credits_delta` WHERE `id` = (SELECT `product_id` FROM `license_keys` WHERE `id` = NEW.`reference`); END;--> statement-breakpoint
-- A customer renewing their own key with their own credits (by hand or by auto-renewal) pays their reseller the commission of their tier, as their purchase does (0021): the floor of price times percent over 100, the customer its actor and the key its reference.
CREATE TRIGGER `ledger_renewal_pays_commission` AFTER INSERT ON `ledger` WHEN NEW.`kind` = 'renewal' AND NEW.`credits_delta` < 0 AND NEW.`actor_id` = NEW.`user_id` BEGIN INSERT INTO `ledger` (`id`, `user_id`, `actor_id`, `kind`, `credits_delta`, `reference`, `note`, `created_at`) SELECT printf('%08x', NEW.`created_at` / 1000) || lower(hex(randomblob(8))), r.`id`, NEW.`user_id`, 'commission', (-NEW.`credits_delta`) * t.`commission_percent` / 100, NEW.`reference`, k.`product_name` || ', renewal (commission on ' || NEW.`user_id` || ')', NEW.`created_at` FROM `license_keys` k JOIN `users` c ON c.`id` = k.`purchased_by` JOIN `users` r ON r.`id` = c.`reseller_id` AND r.`role` = 'reseller' AND r.`is_active` = 1 JOIN `reseller_tiers` t ON t.`id` = coalesce(r.`reseller_tier_id`, (SELECT `id` FROM `reseller_tiers` WHERE `is_default` = 1)) WHERE k.`id` = NEW.`reference` AND k.`purchased_by` = NEW.`user_id` AND (-NEW.`credits_delta`) * t.`commission_percent` / 100 > 0 AND (t.`product_ids` IS NULL OR EXISTS (SELECT 1 FROM json_each(t.`product_ids`) WHERE `value` = k.`product_id`)); END;--> statement-breakpoint
-- A device first activation starts a generated key clock (0008), except a perpetual key, which has none.
DROP TRIGGER `activations_start_key_and_count_on_product`;--> statement-breakpoint
CREATE TRIGGER `activations_start_key_and_count_on_product` AFTER INSERT ON `activations` BEGIN UPDATE `license_keys` SET `first_used_at` = COALESCE(`first_used_at`, NEW.`activated_at`), `expires_at` = CASE WHEN `status` = 'available' AND `expiry_model` != 'perpetual' THEN NEW.`activated_at` + `duration` * 86400000 ELSE `expires_at` END, `status` = CASE WHEN `status` = 'available' THEN 'used' ELSE `status` END WHERE `id` = NEW.`key_id`; UPDATE `products` SET `total_activations` = `total_activations` + 1 WHERE `id` = (SELECT `product_id` FROM `license_keys` WHERE `id` = NEW.`key_id`); END;
