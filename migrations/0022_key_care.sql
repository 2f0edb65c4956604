-- A key's care by its holder (issue 34): key_events holds its transfers and regenerations, retired_keys
-- the values a regeneration replaced (the licensing API answers them KEY_REGENERATED), and a key counts
-- its transfers (the owner's setting may limit them). The column goes in with ALTER TABLE, so
-- license_keys is not rebuilt under its triggers.
CREATE TABLE `key_events` (
	`id` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`kind` text NOT NULL,
	`at` integer NOT NULL,
	`actor_id` text,
	`from_user_id` text,
	`to_user_id` text,
	`detail` text,
	FOREIGN KEY (`key_id`) REFERENCES `license_keys`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "key_events_kind_check" CHECK("key_events"."kind" IN ('transferred', 'regenerated'))
);
--> statement-breakpoint
CREATE INDEX `key_events_key_idx` ON `key_events` (`key_id`,`at`,`id`);--> statement-breakpoint
CREATE INDEX `key_events_from_idx` ON `key_events` (`from_user_id`,`at`);--> statement-breakpoint
CREATE INDEX `key_events_to_idx` ON `key_events` (`to_user_id`,`at`);--> statement-breakpoint
CREATE TABLE `retired_keys` (
	`key` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`retired_at` integer NOT NULL,
	FOREIGN KEY (`key_id`) REFERENCES `license_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `retired_keys_key_idx` ON `retired_keys` (`key_id`);--> statement-breakpoint
ALTER TABLE `license_keys` ADD `transfer_count` integer DEFAULT 0 NOT NULL;