DROP INDEX `license_keys_buyer_idx`;--> statement-breakpoint
DROP INDEX `license_keys_creator_idx`;--> statement-breakpoint
DROP INDEX `license_keys_product_idx`;--> statement-breakpoint
CREATE INDEX `license_keys_buyer_idx` ON `license_keys` (`purchased_by`,`created_at`,`id`,`key`,`product_name`,`product_key_tag`,`status`,`expires_at`);--> statement-breakpoint
CREATE INDEX `license_keys_creator_idx` ON `license_keys` (`created_by`,`created_at`,`id`,`status`,`expires_at`);--> statement-breakpoint
CREATE INDEX `license_keys_product_idx` ON `license_keys` (`product_id`,`created_at`,`id`,`status`,`expires_at`);