-- Card top-ups through Stripe Checkout. A payment is keyed by its Checkout Session id. The credit of a
-- paid session is its topup ledger row, and the unique index below lets a session credit only once,
-- however often or concurrently Stripe delivers its events.
CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`payment_intent_id` text,
	`refunded_cents` integer DEFAULT 0 NOT NULL,
	`refund_owed_cents` integer DEFAULT 0 NOT NULL,
	`dispute_id` text,
	`disputed_at` integer,
	`paid_at` integer,
	`created_at` integer NOT NULL,
	CONSTRAINT "payments_status_check" CHECK("payments"."status" IN ('pending', 'paid', 'refunded', 'expired', 'failed')),
	CONSTRAINT "payments_amounts_check" CHECK("payments"."amount_cents" > 0 AND "payments"."refunded_cents" >= 0 AND "payments"."refund_owed_cents" >= 0)
);
--> statement-breakpoint
CREATE INDEX `payments_user_idx` ON `payments` (`user_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `payments_status_idx` ON `payments` (`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `payments_created_idx` ON `payments` (`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `payments_payment_intent_unique` ON `payments` (`payment_intent_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_topup_session_unique` ON `ledger` (`reference`) WHERE `kind` = 'topup';--> statement-breakpoint
ALTER TABLE `users` ADD `payment_flagged_at` integer;--> statement-breakpoint
-- A top-up moves the USD balance by its ledger row, as a purchase moves credits (migration 0005): a
-- credit adds the paid amount, a refund takes back what it recorded (never more than the balance, so
-- the CHECK on balance_cents holds). On one line, as every trigger (see 0005).
CREATE TRIGGER `ledger_topup_moves_balance` AFTER INSERT ON `ledger` WHEN NEW.`kind` IN ('topup', 'topup_refund') BEGIN UPDATE `users` SET `balance_cents` = `balance_cents` + NEW.`usd_cents_delta` WHERE `id` = NEW.`user_id`; END;
