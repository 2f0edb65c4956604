-- Entitlements and metered usage (issue 31). A product names the entitlements its keys have and may
-- give its keys a usage allowance with an optional refill; a key adds entitlements the owner granted
-- it and keeps its uses left (NULL: none used yet, the product's allowance). usage_events is a key's
-- history of debits and top-ups; a debit's Idempotency-Key is unique per key, so one repeated is
-- found, not made again. The columns go in with ALTER TABLE (each CHECK on its column, as 0020 did),
-- so products and license_keys are not rebuilt under their triggers.
CREATE TABLE `usage_events` (
	`id` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`product_id` text NOT NULL,
	`kind` text NOT NULL,
	`amount` integer NOT NULL,
	`remaining` integer NOT NULL,
	`idempotency_key` text,
	`actor_id` text,
	`at` integer NOT NULL,
	FOREIGN KEY (`key_id`) REFERENCES `license_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "usage_events_kind_check" CHECK("usage_events"."kind" IN ('consume', 'top_up')),
	CONSTRAINT "usage_events_amount_check" CHECK("usage_events"."amount" >= 1 AND "usage_events"."remaining" >= 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `usage_events_idempotency_unique` ON `usage_events` (`key_id`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `usage_events_key_idx` ON `usage_events` (`key_id`,`at`);--> statement-breakpoint
CREATE INDEX `usage_events_product_idx` ON `usage_events` (`product_id`,`at`);--> statement-breakpoint
ALTER TABLE `products` ADD `entitlements` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `products` ADD `usage_allowance` integer CHECK (`usage_allowance` IS NULL OR `usage_allowance` >= 0);--> statement-breakpoint
ALTER TABLE `products` ADD `usage_refill_amount` integer CHECK (`usage_refill_amount` IS NULL OR `usage_refill_amount` >= 1);--> statement-breakpoint
ALTER TABLE `products` ADD `usage_refill_days` integer CHECK ((`usage_refill_days` IS NULL OR `usage_refill_days` BETWEEN 1 AND 365) AND (`usage_refill_amount` IS NULL) = (`usage_refill_days` IS NULL));--> statement-breakpoint
ALTER TABLE `license_keys` ADD `entitlements` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `license_keys` ADD `usage_remaining` integer CHECK (`usage_remaining` IS NULL OR `usage_remaining` >= 0);--> statement-breakpoint
ALTER TABLE `license_keys` ADD `usage_period_start` integer;
