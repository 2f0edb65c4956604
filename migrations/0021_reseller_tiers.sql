CREATE TABLE `reseller_tiers` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`discount_percent` integer DEFAULT 0 NOT NULL,
	`commission_percent` integer DEFAULT 0 NOT NULL,
	`product_ids` text,
	`daily_key_cap` integer,
	`is_default` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer,
	CONSTRAINT "reseller_tiers_percents_check" CHECK("reseller_tiers"."discount_percent" BETWEEN 0 AND 90 AND "reseller_tiers"."commission_percent" BETWEEN 0 AND 90),
	CONSTRAINT "reseller_tiers_cap_check" CHECK("reseller_tiers"."daily_key_cap" IS NULL OR "reseller_tiers"."daily_key_cap" >= 1)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reseller_tiers_name_unique` ON `reseller_tiers` (lower("name"));--> statement-breakpoint
CREATE UNIQUE INDEX `reseller_tiers_default_unique` ON `reseller_tiers` (`is_default`) WHERE "reseller_tiers"."is_default" = 1;--> statement-breakpoint
ALTER TABLE `users` ADD `reseller_tier_id` text;--> statement-breakpoint
ALTER TABLE `users` ADD `referral_code` text;--> statement-breakpoint
ALTER TABLE `users` ADD `reseller_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `users_referral_code_unique` ON `users` (`referral_code`);--> statement-breakpoint
CREATE INDEX `users_reseller_idx` ON `users` (`reseller_id`,`created_at`) WHERE "users"."reseller_id" IS NOT NULL;--> statement-breakpoint
-- Resellers who earn (issue 32). A reseller has a referral code, given by the triggers below when the
-- account is made a reseller or becomes one. A customer belongs to a reseller (users.reseller_id) by
-- their referral link or the choice of the owner. A key a customer buys with their own credits pays
-- their reseller the commission of their tier in the same statement, so both commit or neither. A key
-- a reseller buys for a customer is refused by the guard below when their tier does not sell its
-- product or its daily cap is reached, exact under concurrency since the count is read as the key
-- goes in. Each trigger is on one line, and these comments hold no quote or semicolon (see 0005).
CREATE TRIGGER `users_give_referral_code` AFTER INSERT ON `users` WHEN NEW.`role` = 'reseller' AND NEW.`referral_code` IS NULL BEGIN UPDATE `users` SET `referral_code` = upper(hex(randomblob(5))) WHERE `id` = NEW.`id`; END;--> statement-breakpoint
CREATE TRIGGER `users_give_referral_code_on_role` AFTER UPDATE OF `role` ON `users` WHEN NEW.`role` = 'reseller' AND NEW.`referral_code` IS NULL BEGIN UPDATE `users` SET `referral_code` = upper(hex(randomblob(5))) WHERE `id` = NEW.`id`; END;--> statement-breakpoint
UPDATE `users` SET `referral_code` = upper(hex(randomblob(5))) WHERE `role` = 'reseller' AND `referral_code` IS NULL;--> statement-breakpoint
-- A commission ledger row adds its credits to the reseller as it goes in.
CREATE TRIGGER `ledger_commission_credits_reseller` BEFORE INSERT ON `ledger` WHEN NEW.`kind` = 'commission' BEGIN UPDATE `users` SET `credits` = `credits` + NEW.`credits_delta` WHERE `id` = NEW.`user_id`; END;--> statement-breakpoint
-- The commission of a customer purchase: the floor of price times percent over 100, when the reseller is an active reseller whose tier sells the product, and it comes to a credit or more. The customer is its actor and the key its reference.
CREATE TRIGGER `license_keys_pay_commission` AFTER INSERT ON `license_keys` WHEN NEW.`generation_method` = 'purchase' AND NEW.`paid_by` IS NOT NULL AND NEW.`paid_by` = NEW.`purchased_by` AND NEW.`purchase_price` > 0 BEGIN INSERT INTO `ledger` (`id`, `user_id`, `actor_id`, `kind`, `credits_delta`, `reference`, `note`, `created_at`) SELECT printf('%08x', NEW.`created_at` / 1000) || lower(hex(randomblob(8))), r.`id`, NEW.`paid_by`, 'commission', NEW.`purchase_price` * t.`commission_percent` / 100, NEW.`id`, NEW.`product_name` || ', ' || NEW.`duration` || ' days (commission on ' || NEW.`purchased_by` || ')', NEW.`created_at` FROM `users` c JOIN `users` r ON r.`id` = c.`reseller_id` AND r.`role` = 'reseller' AND r.`is_active` = 1 JOIN `reseller_tiers` t ON t.`id` = coalesce(r.`reseller_tier_id`, (SELECT `id` FROM `reseller_tiers` WHERE `is_default` = 1)) WHERE c.`id` = NEW.`purchased_by` AND NEW.`purchase_price` * t.`commission_percent` / 100 > 0 AND (t.`product_ids` IS NULL OR EXISTS (SELECT 1 FROM json_each(t.`product_ids`) WHERE `value` = NEW.`product_id`)); END;--> statement-breakpoint
-- A key a reseller buys for a customer: refused when their tier does not sell its product, or when they bought the daily cap of their tier this UTC day. A withdrawn product (product_id NULL) fails on its NOT NULL as before.
CREATE TRIGGER `license_keys_reseller_terms` BEFORE INSERT ON `license_keys` WHEN NEW.`generation_method` = 'reseller' AND NEW.`product_id` IS NOT NULL BEGIN SELECT RAISE(ABORT, 'RESELLER_PRODUCT_NOT_IN_TIER') FROM `reseller_tiers` t WHERE t.`id` = coalesce((SELECT `reseller_tier_id` FROM `users` WHERE `id` = NEW.`created_by`), (SELECT `id` FROM `reseller_tiers` WHERE `is_default` = 1)) AND t.`product_ids` IS NOT NULL AND NOT EXISTS (SELECT 1 FROM json_each(t.`product_ids`) WHERE `value` = NEW.`product_id`); SELECT RAISE(ABORT, 'RESELLER_DAILY_CAP') FROM `reseller_tiers` t WHERE t.`id` = coalesce((SELECT `reseller_tier_id` FROM `users` WHERE `id` = NEW.`created_by`), (SELECT `id` FROM `reseller_tiers` WHERE `is_default` = 1)) AND t.`daily_key_cap` IS NOT NULL AND (SELECT count(*) FROM `license_keys` WHERE `created_by` = NEW.`created_by` AND `generation_method` = 'reseller' AND `created_at` >= NEW.`created_at` - NEW.`created_at` % 86400000) >= t.`daily_key_cap`; END;
