-- Card reversals that take back what the money became (issue 33). A refund or a dispute is one row
-- of payment_reversals, written by one guarded INSERT that works out, inside SQL, what it takes: the
-- USD balance first, then the credits the top-up became (at the rate of the exchanges made since it
-- was paid), and what neither covers is owed (payments.refund_owed_cents, in USD cents). A won
-- dispute writes a row that gives back what its dispute took. The ledger row beside each reversal
-- moves both balances by the trigger below. While an account owes anything it cannot spend: the
-- ledger rows of purchases and exchanges abort (SPENDING_BLOCKED_OWED). Top-ups of a first-time payer
-- may be held (payments.held_until, set at the credit from the owner setting): an exchange that would
-- leave less USD than the held top-ups aborts (FUNDS_HELD). Refund and dispute events that arrive
-- before their payment is credited wait in stripe_parked_events.
-- Each trigger is on one line, and these comments hold no quote or semicolon (see 0005).
ALTER TABLE `payments` ADD `dispute_status` text;--> statement-breakpoint
ALTER TABLE `payments` ADD `dispute_cents` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `payments` ADD `held_until` integer;--> statement-breakpoint
CREATE TABLE `payment_reversals` (
	`id` text PRIMARY KEY NOT NULL,
	`payment_id` text NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`usd_cents` integer NOT NULL,
	`credits` integer NOT NULL,
	`owed_cents` integer NOT NULL,
	`created_at` integer NOT NULL,
	CONSTRAINT "payment_reversals_kind_check" CHECK("payment_reversals"."kind" IN ('refund', 'dispute', 'dispute_won'))
);
--> statement-breakpoint
CREATE INDEX `payment_reversals_payment_idx` ON `payment_reversals` (`payment_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `stripe_parked_events` (
	`id` text PRIMARY KEY NOT NULL,
	`payment_intent_id` text NOT NULL,
	`type` text NOT NULL,
	`object` text NOT NULL,
	`event_created` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `stripe_parked_events_intent_idx` ON `stripe_parked_events` (`payment_intent_id`,`event_created`);--> statement-breakpoint
CREATE INDEX `payments_user_owed_idx` ON `payments` (`user_id`) WHERE `refund_owed_cents` > 0;--> statement-breakpoint
CREATE INDEX `payments_user_held_idx` ON `payments` (`user_id`,`held_until`) WHERE `held_until` IS NOT NULL;--> statement-breakpoint
-- A reversal ledger row (card_reversal takes, dispute_return gives back) moves both balances by its deltas.
CREATE TRIGGER `ledger_reversal_moves_balances` AFTER INSERT ON `ledger` WHEN NEW.`kind` IN ('card_reversal', 'dispute_return') BEGIN UPDATE `users` SET `balance_cents` = `balance_cents` + NEW.`usd_cents_delta`, `credits` = `credits` + NEW.`credits_delta` WHERE `id` = NEW.`user_id`; END;--> statement-breakpoint
-- Spending (a purchase debit or an exchange) aborts while the account owes a reversal, and an exchange aborts when it would spend held top-ups. Before the purchase debit trigger of 0005, by name order it does not matter: an abort undoes the statement.
CREATE TRIGGER `ledger_spending_guard` BEFORE INSERT ON `ledger` WHEN NEW.`kind` IN ('purchase', 'exchange') BEGIN SELECT RAISE(ABORT, 'SPENDING_BLOCKED_OWED') WHERE EXISTS (SELECT 1 FROM `payments` WHERE `user_id` = NEW.`user_id` AND `refund_owed_cents` > 0); SELECT RAISE(ABORT, 'FUNDS_HELD') WHERE NEW.`kind` = 'exchange' AND (SELECT `balance_cents` FROM `users` WHERE `id` = NEW.`user_id`) < (SELECT coalesce(sum(`amount_cents` - `refunded_cents` - `dispute_cents`), 0) FROM `payments` WHERE `user_id` = NEW.`user_id` AND `held_until` > NEW.`created_at`); END;
