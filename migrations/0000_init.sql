CREATE TABLE `activations` (
	`id` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`device_fingerprint` text NOT NULL,
	`device_info` text,
	`activated_at` integer NOT NULL,
	`last_used` integer,
	FOREIGN KEY (`key_id`) REFERENCES `license_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `activations_key_device_unique` ON `activations` (`key_id`,`device_fingerprint`);--> statement-breakpoint
CREATE INDEX `activations_activated_idx` ON `activations` (`activated_at`);--> statement-breakpoint
CREATE TABLE `api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`role` text NOT NULL,
	`read_only` integer DEFAULT false NOT NULL,
	`last_used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_hash_unique` ON `api_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `api_tokens_user_idx` ON `api_tokens` (`user_id`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`actor_id` text,
	`action` text NOT NULL,
	`target_type` text,
	`target_id` text,
	`details` text,
	`ip_address` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_log_created_idx` ON `audit_log` (`created_at`);--> statement-breakpoint
CREATE INDEX `audit_log_action_idx` ON `audit_log` (`action`,`created_at`);--> statement-breakpoint
CREATE INDEX `audit_log_actor_idx` ON `audit_log` (`actor_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`user_id` text NOT NULL,
	`key` text NOT NULL,
	`response` text NOT NULL,
	`status` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_created_idx` ON `idempotency_keys` (`created_at`);--> statement-breakpoint
CREATE TABLE `ledger` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`actor_id` text,
	`kind` text NOT NULL,
	`credits_delta` integer DEFAULT 0 NOT NULL,
	`usd_cents_delta` integer DEFAULT 0 NOT NULL,
	`reference` text,
	`note` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `ledger_user_idx` ON `ledger` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `ledger_created_idx` ON `ledger` (`created_at`);--> statement-breakpoint
CREATE INDEX `ledger_kind_created_idx` ON `ledger` (`kind`,`created_at`);--> statement-breakpoint
CREATE TABLE `license_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`key` text NOT NULL,
	`status` text NOT NULL,
	`product_id` text NOT NULL,
	`product_name` text NOT NULL,
	`product_key_tag` text NOT NULL,
	`product_type` text NOT NULL,
	`duration` integer NOT NULL,
	`max_activations` integer NOT NULL,
	`purchased_at` integer,
	`purchased_by` text,
	`created_by` text,
	`purchase_price` integer DEFAULT 0 NOT NULL,
	`revoke_reason` text,
	`revoked_at` integer,
	`first_used_at` integer,
	`expires_at` integer,
	`generation_method` text DEFAULT 'automatic' NOT NULL,
	`last_device_removal_at` integer,
	`created_at` integer NOT NULL,
	CONSTRAINT "license_keys_status_check" CHECK("license_keys"."status" IN ('available', 'used', 'revoked', 'expired')),
	CONSTRAINT "license_keys_method_check" CHECK("license_keys"."generation_method" IN ('automatic', 'purchase', 'reseller', 'direct')),
	CONSTRAINT "license_keys_duration_check" CHECK("license_keys"."duration" >= 1 AND "license_keys"."max_activations" >= 1)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `license_keys_key_unique` ON `license_keys` (`key`);--> statement-breakpoint
CREATE INDEX `license_keys_buyer_idx` ON `license_keys` (`purchased_by`,`created_at`);--> statement-breakpoint
CREATE INDEX `license_keys_creator_idx` ON `license_keys` (`created_by`,`created_at`);--> statement-breakpoint
CREATE INDEX `license_keys_product_idx` ON `license_keys` (`product_id`,`status`);--> statement-breakpoint
CREATE INDEX `license_keys_status_idx` ON `license_keys` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `license_keys_created_idx` ON `license_keys` (`created_at`);--> statement-breakpoint
CREATE INDEX `license_keys_expiry_idx` ON `license_keys` (`status`,`expires_at`);--> statement-breakpoint
CREATE INDEX `license_keys_tag_idx` ON `license_keys` (`product_key_tag`,`created_at`);--> statement-breakpoint
CREATE INDEX `license_keys_name_idx` ON `license_keys` (`product_name`,`created_at`);--> statement-breakpoint
CREATE TABLE `password_reset_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `password_reset_tokens_hash_unique` ON `password_reset_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `password_reset_tokens_user_idx` ON `password_reset_tokens` (`user_id`);--> statement-breakpoint
CREATE TABLE `products` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`product_type` text DEFAULT 'software' NOT NULL,
	`key_tag` text NOT NULL,
	`base_credit_cost` integer NOT NULL,
	`credits_per_day` integer DEFAULT 10 NOT NULL,
	`min_days` integer DEFAULT 1 NOT NULL,
	`max_days` integer DEFAULT 365 NOT NULL,
	`max_activations` integer DEFAULT 1 NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`features` text DEFAULT '[]' NOT NULL,
	`total_generated` integer DEFAULT 0 NOT NULL,
	`total_sold` integer DEFAULT 0 NOT NULL,
	`revenue` integer DEFAULT 0 NOT NULL,
	`total_activations` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer,
	CONSTRAINT "products_type_check" CHECK("products"."product_type" IN ('software', 'game', 'service', 'other')),
	CONSTRAINT "products_costs_check" CHECK("products"."base_credit_cost" >= 0 AND "products"."credits_per_day" >= 0),
	CONSTRAINT "products_days_check" CHECK("products"."min_days" >= 1 AND "products"."max_days" >= "products"."min_days"),
	CONSTRAINT "products_activations_check" CHECK("products"."max_activations" >= 1)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `products_key_tag_unique` ON `products` (`key_tag`);--> statement-breakpoint
CREATE INDEX `products_active_name_idx` ON `products` (`is_active`,`name`);--> statement-breakpoint
CREATE TABLE `rate_limits` (
	`bucket` text NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`bucket`, `window_start`)
);
--> statement-breakpoint
CREATE INDEX `rate_limits_window_idx` ON `rate_limits` (`window_start`);--> statement-breakpoint
CREATE TABLE `recovery_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `recovery_tokens_user_idx` ON `recovery_tokens` (`user_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `recovery_tokens_hash_unique` ON `recovery_tokens` (`token_hash`);--> statement-breakpoint
CREATE TABLE `security_log` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`event` text NOT NULL,
	`ip_address` text,
	`user_agent` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `security_log_user_idx` ON `security_log` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`email` text NOT NULL,
	`password_hash` text,
	`role` text DEFAULT 'user' NOT NULL,
	`balance_cents` integer DEFAULT 0 NOT NULL,
	`credits` integer DEFAULT 0 NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`last_login` integer,
	`two_factor_enabled` integer DEFAULT false NOT NULL,
	`two_factor_secret` text,
	`two_factor_pending_secret` text,
	`two_factor_last_step` integer,
	`google_id` text,
	`google_email` text,
	`password_changed_at` integer,
	CONSTRAINT "users_role_check" CHECK("users"."role" IN ('user', 'reseller', 'owner')),
	CONSTRAINT "users_credits_check" CHECK("users"."credits" >= 0),
	CONSTRAINT "users_balance_check" CHECK("users"."balance_cents" >= 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_unique` ON `users` (lower("username"));--> statement-breakpoint
CREATE UNIQUE INDEX `users_google_id_unique` ON `users` (`google_id`);--> statement-breakpoint
CREATE INDEX `users_role_created_idx` ON `users` (`role`,`created_at`);--> statement-breakpoint
CREATE INDEX `users_created_idx` ON `users` (`created_at`);