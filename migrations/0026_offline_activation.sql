-- Air-gapped activation (issue 31): a device's request turned into a signed response by the key's
-- holder. The nonce is accepted once per key (the unique index); deactivated_at is set when the
-- device's signed deactivation proof freed its slot.
CREATE TABLE `offline_activations` (
	`id` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`device_fingerprint` text NOT NULL,
	`nonce` text NOT NULL,
	`device_key` text NOT NULL,
	`issued_at` integer NOT NULL,
	`deactivated_at` integer,
	FOREIGN KEY (`key_id`) REFERENCES `license_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `offline_activations_key_nonce_unique` ON `offline_activations` (`key_id`,`nonce`);--> statement-breakpoint
CREATE INDEX `offline_activations_device_idx` ON `offline_activations` (`key_id`,`device_fingerprint`);