DROP INDEX `license_keys_buyer_idx`;--> statement-breakpoint
CREATE INDEX `license_keys_buyer_idx` ON `license_keys` (`purchased_by`,`created_at`,`id`,`key`,`product_name`,`product_key_tag`);