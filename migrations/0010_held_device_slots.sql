-- The device limit holds offline (issue 18). A product sets how long an offline token lives (hours,
-- 1 to 720, default 24). When the owner shortens it, tokens issued before live on: the product keeps
-- until when (ms), and a slot released meanwhile stays held at least that long.
ALTER TABLE `products` ADD `offline_token_hours` integer DEFAULT 24 NOT NULL CHECK (`offline_token_hours` BETWEEN 1 AND 720);--> statement-breakpoint
-- Tokens issued before this migration lived up to seven days.
ALTER TABLE `products` ADD `earlier_tokens_live_until` integer;--> statement-breakpoint
UPDATE `products` SET `earlier_tokens_live_until` = CAST((julianday('now') - 2440587.5) * 86400000 AS integer) + 604800000;--> statement-breakpoint
-- A device that left a key (deactivated, removed by its customer or the owner) may still hold an
-- offline token: its slot stays taken until frees_at, the end of the longest token it can hold.
CREATE TABLE `held_slots` (
	`id` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`device_fingerprint` text NOT NULL,
	`released_at` integer NOT NULL,
	`frees_at` integer NOT NULL,
	FOREIGN KEY (`key_id`) REFERENCES `license_keys`(`id`) ON UPDATE no action ON DELETE cascade
);--> statement-breakpoint
CREATE UNIQUE INDEX `held_slots_key_device_unique` ON `held_slots` (`key_id`,`device_fingerprint`);--> statement-breakpoint
CREATE INDEX `held_slots_frees_idx` ON `held_slots` (`frees_at`);--> statement-breakpoint
-- A device activated again on a key gives up the slot it held there: its activation stands for it
-- now, and a later release holds afresh. An insert that does nothing fires nothing. On one line, as
-- every trigger (see 0005).
CREATE TRIGGER `activations_take_back_held_slot` AFTER INSERT ON `activations` BEGIN DELETE FROM `held_slots` WHERE `key_id` = NEW.`key_id` AND `device_fingerprint` = NEW.`device_fingerprint`; END;
