DROP INDEX `license_keys_tag_idx`;--> statement-breakpoint
DROP INDEX `license_keys_name_idx`;