-- Side doors closed (issue 42, the lows). A card reversal that leaves its customer owing takes back
-- the commission their purchases since the payment earned a reseller (commission_clawbacks, one row
-- per commission ledger row): what the reseller's credits cover is taken, the rest is owed, and the
-- spending guard below blocks the reseller while anything is owed, as it blocks a customer. Each
-- stretch of a customer with a reseller is kept (customer_resellers, by the triggers below), so each
-- reseller's figures count the purchases made while the customer was theirs. A trial key of a
-- metered product carries at most the product's trial allowance of uses (default none).
-- Each trigger is on one line, and these comments hold no quote or semicolon (see 0005).
CREATE TABLE `commission_clawbacks` (
	`commission_id` text PRIMARY KEY NOT NULL,
	`reversal_id` text NOT NULL,
	`payment_id` text NOT NULL,
	`reseller_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`credits` integer NOT NULL,
	`taken` integer NOT NULL,
	`owed` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `commission_clawbacks_reversal_idx` ON `commission_clawbacks` (`reversal_id`);--> statement-breakpoint
CREATE INDEX `commission_clawbacks_payment_idx` ON `commission_clawbacks` (`payment_id`);--> statement-breakpoint
CREATE INDEX `commission_clawbacks_owed_idx` ON `commission_clawbacks` (`reseller_id`) WHERE "commission_clawbacks"."owed" > 0;--> statement-breakpoint
CREATE TABLE `customer_resellers` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`reseller_id` text NOT NULL,
	`since` integer NOT NULL,
	`until` integer
);
--> statement-breakpoint
CREATE INDEX `customer_resellers_reseller_idx` ON `customer_resellers` (`reseller_id`,`customer_id`);--> statement-breakpoint
CREATE INDEX `customer_resellers_customer_idx` ON `customer_resellers` (`customer_id`,`since`);--> statement-breakpoint
ALTER TABLE `products` ADD `trial_usage_allowance` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- The stretches customers already have, from when each account was made (the best known start).
INSERT INTO `customer_resellers` (`id`, `customer_id`, `reseller_id`, `since`, `until`) SELECT printf('%08x', `created_at` / 1000) || lower(hex(randomblob(8))), `id`, `reseller_id`, `created_at`, NULL FROM `users` WHERE `reseller_id` IS NOT NULL;--> statement-breakpoint
-- An account made with a reseller (a referral, an import) opens its stretch.
CREATE TRIGGER `users_reseller_stretch_on_insert` AFTER INSERT ON `users` WHEN NEW.`reseller_id` IS NOT NULL BEGIN INSERT INTO `customer_resellers` (`id`, `customer_id`, `reseller_id`, `since`, `until`) VALUES (printf('%08x', NEW.`created_at` / 1000) || lower(hex(randomblob(8))), NEW.`id`, NEW.`reseller_id`, NEW.`created_at`, NULL); END;--> statement-breakpoint
-- A customer moved to another reseller (or to none) closes the open stretch now and opens the next.
CREATE TRIGGER `users_reseller_stretch_on_change` AFTER UPDATE OF `reseller_id` ON `users` WHEN OLD.`reseller_id` IS NOT NEW.`reseller_id` BEGIN UPDATE `customer_resellers` SET `until` = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) WHERE `customer_id` = NEW.`id` AND `until` IS NULL; INSERT INTO `customer_resellers` (`id`, `customer_id`, `reseller_id`, `since`, `until`) SELECT printf('%08x', CAST((julianday('now') - 2440587.5) * 86400 AS INTEGER)) || lower(hex(randomblob(8))), NEW.`id`, NEW.`reseller_id`, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), NULL WHERE NEW.`reseller_id` IS NOT NULL; END;--> statement-breakpoint
-- Spending aborts while the account owes a reversal, or owes commission taken back after a customer's reversal, and an exchange aborts when it would spend held top-ups (0017, with the commission added).
DROP TRIGGER `ledger_spending_guard`;--> statement-breakpoint
CREATE TRIGGER `ledger_spending_guard` BEFORE INSERT ON `ledger` WHEN NEW.`kind` IN ('purchase', 'exchange') BEGIN SELECT RAISE(ABORT, 'SPENDING_BLOCKED_OWED') WHERE EXISTS (SELECT 1 FROM `payments` WHERE `user_id` = NEW.`user_id` AND `refund_owed_cents` > 0) OR EXISTS (SELECT 1 FROM `commission_clawbacks` WHERE `reseller_id` = NEW.`user_id` AND `owed` > 0); SELECT RAISE(ABORT, 'FUNDS_HELD') WHERE NEW.`kind` = 'exchange' AND (SELECT `balance_cents` FROM `users` WHERE `id` = NEW.`user_id`) < (SELECT coalesce(sum(`amount_cents` - `refunded_cents` - `dispute_cents`), 0) FROM `payments` WHERE `user_id` = NEW.`user_id` AND `held_until` > NEW.`created_at`); END;
