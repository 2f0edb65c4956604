-- The mail customers want (issue 44): every mail is a row from what decided it to its delivery by the
-- mail queue; the notice kinds a customer opted out of; when the low-balance mail went.
CREATE TABLE `mails` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`user_id` text,
	`to_email` text,
	`data` text NOT NULL,
	`dedupe_key` text,
	`state` text DEFAULT 'queued' NOT NULL,
	`subject` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`provider_status` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	`sent_at` integer,
	`dispatched_at` integer,
	`sending_until` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "mails_kind_check" CHECK("mails"."kind" IN ('verification', 'password_reset', 'import_invitation', 'security_notice', 'key_received', 'expiry_reminder', 'receipt', 'auto_renew_failed', 'low_balance', 'new_device')),
	CONSTRAINT "mails_state_check" CHECK("mails"."state" IN ('queued', 'sent', 'failed', 'skipped')),
	CONSTRAINT "mails_recipient_check" CHECK("mails"."user_id" IS NOT NULL OR "mails"."to_email" IS NOT NULL)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mails_dedupe_unique` ON `mails` (`dedupe_key`);--> statement-breakpoint
CREATE INDEX `mails_created_idx` ON `mails` (`created_at`);--> statement-breakpoint
CREATE INDEX `mails_state_idx` ON `mails` (`state`,`created_at`);--> statement-breakpoint
CREATE INDEX `mails_user_idx` ON `mails` (`user_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `users` ADD `mail_opt_outs` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `low_balance_mailed_at` integer;