CREATE TABLE `sign_in_failures` (
	`account` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`locked_until` integer NOT NULL,
	`last_failure_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sign_in_failures_last_idx` ON `sign_in_failures` (`last_failure_at`);
