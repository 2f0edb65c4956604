-- Licences that fit how software is used (issue 30): floating seats held by leases, borrowing,
-- device swaps within a budget, trials. A product's new fields go in with ALTER TABLE (each CHECK on
-- its column, as 0010 did), so the products table is not rebuilt under its triggers.
CREATE TABLE `device_removals` (
	`id` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`device_fingerprint` text NOT NULL,
	`removed_at` integer NOT NULL,
	FOREIGN KEY (`key_id`) REFERENCES `license_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `device_removals_key_idx` ON `device_removals` (`key_id`,`removed_at`);--> statement-breakpoint
CREATE TABLE `trials` (
	`id` text PRIMARY KEY NOT NULL,
	`product_id` text NOT NULL,
	`device_fingerprint` text NOT NULL,
	`key_id` text,
	`started_at` integer NOT NULL,
	`converted_key_id` text,
	FOREIGN KEY (`key_id`) REFERENCES `license_keys`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `trials_product_device_unique` ON `trials` (`product_id`,`device_fingerprint`);--> statement-breakpoint
CREATE INDEX `trials_key_idx` ON `trials` (`key_id`);--> statement-breakpoint
ALTER TABLE `activations` ADD `lease_expires_at` integer;--> statement-breakpoint
ALTER TABLE `activations` ADD `borrowed_until` integer;--> statement-breakpoint
ALTER TABLE `activations` ADD `replace_pending_at` integer;--> statement-breakpoint
ALTER TABLE `license_keys` ADD `is_trial` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `products` ADD `license_model` text DEFAULT 'node-locked' NOT NULL CHECK (`license_model` IN ('node-locked', 'floating'));--> statement-breakpoint
ALTER TABLE `products` ADD `lease_minutes` integer DEFAULT 60 NOT NULL CHECK (`lease_minutes` BETWEEN 1 AND 1440);--> statement-breakpoint
ALTER TABLE `products` ADD `borrow_max_hours` integer DEFAULT 0 NOT NULL CHECK (`borrow_max_hours` BETWEEN 0 AND 720);--> statement-breakpoint
ALTER TABLE `products` ADD `swap_limit` integer CHECK (`swap_limit` IS NULL OR `swap_limit` BETWEEN 0 AND 100);--> statement-breakpoint
ALTER TABLE `products` ADD `swap_window_days` integer DEFAULT 30 NOT NULL CHECK (`swap_window_days` BETWEEN 1 AND 365);--> statement-breakpoint
ALTER TABLE `products` ADD `trial_days` integer DEFAULT 0 NOT NULL CHECK (`trial_days` BETWEEN 0 AND 365);
--> statement-breakpoint
-- A device that activates a paid key of a product it had a trial of converts that trial (reporting;
-- the trial key ends on its own). On one line, as every trigger (see 0005).
CREATE TRIGGER `activations_convert_trial` AFTER INSERT ON `activations` BEGIN UPDATE `trials` SET `converted_key_id` = NEW.`key_id` WHERE `device_fingerprint` = NEW.`device_fingerprint` AND `converted_key_id` IS NULL AND `product_id` = (SELECT `product_id` FROM `license_keys` WHERE `id` = NEW.`key_id` AND `is_trial` = 0); END;
--> statement-breakpoint
-- A device activated on a key takes the place of the device its customer asked to replace (My Keys),
-- when the key would otherwise hold more than its limit: the activation's insert did not count that
-- one, and it goes here, in the same statement. (Its own held slot is not counted: the trigger above drops it.)
CREATE TRIGGER `activations_replace_pending` AFTER INSERT ON `activations` BEGIN DELETE FROM `activations` WHERE `id` = (SELECT `id` FROM `activations` WHERE `key_id` = NEW.`key_id` AND `replace_pending_at` IS NOT NULL AND `id` != NEW.`id` ORDER BY `replace_pending_at`, `id` LIMIT 1) AND (SELECT count(*) FROM `activations` c WHERE c.`key_id` = NEW.`key_id` AND (c.`lease_expires_at` IS NULL OR c.`lease_expires_at` > NEW.`activated_at`)) + (SELECT count(*) FROM `held_slots` h WHERE h.`key_id` = NEW.`key_id` AND h.`frees_at` > NEW.`activated_at` AND h.`device_fingerprint` != NEW.`device_fingerprint`) > (SELECT `max_activations` FROM `license_keys` WHERE `id` = NEW.`key_id`); END;
