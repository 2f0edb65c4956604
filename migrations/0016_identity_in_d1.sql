-- Identity is decided by D1 (worker/db/session.ts). Sessions move from KV into this table, and
-- every account gets a credential epoch: a session or API token made under an older epoch is over,
-- so a reset, a password or two-factor change, a role change or a deactivation ends them all with
-- one UPDATE of the account, with no list of sessions to miss one. Sessions kept in KV before this
-- migration are not carried over: everyone signs in once more. API tokens keep working (epoch 0).
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`credential_epoch` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`last_active` integer NOT NULL,
	`ip_address` text,
	`user_agent` text,
	`location` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`user_id`,`last_active`);
--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `credential_epoch` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `users` ADD `credential_epoch` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- The guard that opens every round trip of a signed-in write. Inserting into the view writes
-- nothing; its trigger aborts the whole batch unless the caller's account is active
-- (CALLER_INACTIVE), the session or token is live under the account's current epoch (CALLER_ENDED;
-- a session also within its expiry and the owner's idle limit), and the account still has the role
-- the request acts with (CALLER_ROLE). A read's round trips carry the same check as a SELECT
-- (CALLER_CHECK_SQL in worker/db/session.ts; worker/test/caller-check.test.ts keeps the two equal). On one line, as every
-- trigger (see 0005).
DROP TRIGGER `caller_guard_check`;
--> statement-breakpoint
DROP VIEW `caller_guard`;
--> statement-breakpoint
CREATE VIEW `caller_guard` AS SELECT NULL AS `kind`, NULL AS `credential_id`, NULL AS `user_id`, NULL AS `role`, NULL AS `now`, NULL AS `idle_ms`;
--> statement-breakpoint
CREATE TRIGGER `caller_guard_check` INSTEAD OF INSERT ON `caller_guard` BEGIN SELECT RAISE(ABORT, 'CALLER_INACTIVE') WHERE NOT EXISTS (SELECT 1 FROM `users` WHERE `id` = NEW.`user_id` AND `is_active` = 1); SELECT RAISE(ABORT, 'CALLER_ENDED') WHERE NOT EXISTS (SELECT 1 FROM `users` `u` WHERE `u`.`id` = NEW.`user_id` AND ((NEW.`kind` = 'session' AND EXISTS (SELECT 1 FROM `sessions` `s` WHERE `s`.`id` = NEW.`credential_id` AND `s`.`user_id` = `u`.`id` AND `s`.`credential_epoch` = `u`.`credential_epoch` AND `s`.`expires_at` > NEW.`now` AND `s`.`last_active` > NEW.`now` - NEW.`idle_ms`)) OR (NEW.`kind` = 'apiToken' AND EXISTS (SELECT 1 FROM `api_tokens` `t` WHERE `t`.`id` = NEW.`credential_id` AND `t`.`user_id` = `u`.`id` AND `t`.`credential_epoch` = `u`.`credential_epoch`)))); SELECT RAISE(ABORT, 'CALLER_ROLE') WHERE NOT EXISTS (SELECT 1 FROM `users` WHERE `id` = NEW.`user_id` AND `role` = NEW.`role`); END;
