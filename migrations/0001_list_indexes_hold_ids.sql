DROP INDEX `license_keys_buyer_idx`;--> statement-breakpoint
DROP INDEX `license_keys_creator_idx`;--> statement-breakpoint
DROP INDEX `license_keys_status_idx`;--> statement-breakpoint
DROP INDEX `license_keys_created_idx`;--> statement-breakpoint
CREATE INDEX `license_keys_buyer_idx` ON `license_keys` (`purchased_by`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `license_keys_creator_idx` ON `license_keys` (`created_by`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `license_keys_status_idx` ON `license_keys` (`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `license_keys_created_idx` ON `license_keys` (`created_at`,`id`);