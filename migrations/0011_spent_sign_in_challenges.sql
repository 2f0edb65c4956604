-- Two-factor sign-in challenges spent by a successful second step, kept until they would have
-- expired anyway, so each challenge opens at most one session (issue 18). The primary key makes the
-- spend one conditional insert: of two concurrent uses, exactly one inserts.
CREATE TABLE `spent_challenges` (
	`id` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `spent_challenges_expires_idx` ON `spent_challenges` (`expires_at`);
