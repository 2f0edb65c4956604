-- A key's activity (issue 34): its history reads what is recorded already (the key row, device
-- removals, transfers and regenerations, the owner's audit rows, found by their target) and records
-- what was not: each device's activation (key_events, by a trigger on the insert, so every way a
-- device comes in is written in its own statement), whether a removal was a swap, and the UTC days a
-- device validated with their count (device_days, added to by the batch of touches). key_events is
-- rebuilt for its wider CHECK; nothing refers to it.
CREATE TABLE `device_days` (
	`key_id` text NOT NULL,
	`device_fingerprint` text NOT NULL,
	`day` integer NOT NULL,
	`validations` integer NOT NULL,
	`last_at` integer NOT NULL,
	PRIMARY KEY(`key_id`, `day`, `device_fingerprint`),
	FOREIGN KEY (`key_id`) REFERENCES `license_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_key_events` (
	`id` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`kind` text NOT NULL,
	`at` integer NOT NULL,
	`actor_id` text,
	`from_user_id` text,
	`to_user_id` text,
	`detail` text,
	FOREIGN KEY (`key_id`) REFERENCES `license_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "key_events_kind_check" CHECK("__new_key_events"."kind" IN ('transferred', 'regenerated', 'activated'))
);
--> statement-breakpoint
INSERT INTO `__new_key_events`("id", "key_id", "kind", "at", "actor_id", "from_user_id", "to_user_id", "detail") SELECT "id", "key_id", "kind", "at", "actor_id", "from_user_id", "to_user_id", "detail" FROM `key_events`;--> statement-breakpoint
DROP TABLE `key_events`;--> statement-breakpoint
ALTER TABLE `__new_key_events` RENAME TO `key_events`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `key_events_key_idx` ON `key_events` (`key_id`,`at`,`id`);--> statement-breakpoint
CREATE INDEX `key_events_from_idx` ON `key_events` (`from_user_id`,`at`);--> statement-breakpoint
CREATE INDEX `key_events_to_idx` ON `key_events` (`to_user_id`,`at`);--> statement-breakpoint
ALTER TABLE `device_removals` ADD `replaced` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `audit_log_target_idx` ON `audit_log` (`target_id`,`created_at`);;--> statement-breakpoint
-- A device's activation, written as it goes in (an upsert that renews a floating seat's lease fires
-- no insert trigger: it is the same activation). Its id is the activation's own. On one line, as every trigger.
CREATE TRIGGER `activations_record_in_key_events` AFTER INSERT ON `activations` BEGIN INSERT INTO `key_events` (`id`, `key_id`, `kind`, `at`, `detail`) VALUES (NEW.`id`, NEW.`key_id`, 'activated', NEW.`activated_at`, json_object('device', NEW.`device_fingerprint`, 'name', json_extract(NEW.`device_info`, '$.device'), 'model', json_extract(NEW.`device_info`, '$.model'))); END;