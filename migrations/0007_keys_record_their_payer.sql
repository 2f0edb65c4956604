ALTER TABLE `license_keys` ADD `paid_by` text;--> statement-breakpoint
-- A key bought with credits writes the debit of its payer as it goes in: the ledger row (whose own
-- insert takes the credits, migration 0005) with the key as its reference. Before the row of the key,
-- so that a RETURNING clause on its insert reads the balance of the payer after the debit. A failed
-- insert (the credits not there, the account of the payer deleted, the product withdrawn) leaves
-- neither. The id has the shape of every id: 8 hex digits of seconds, then 16 random ones. On one
-- line, as every trigger (see 0005).
CREATE TRIGGER `license_keys_charge_payer` BEFORE INSERT ON `license_keys` WHEN NEW.`paid_by` IS NOT NULL BEGIN INSERT INTO `ledger` (`id`, `user_id`, `actor_id`, `kind`, `credits_delta`, `reference`, `note`, `created_at`) VALUES (printf('%08x', NEW.`created_at` / 1000) || lower(hex(randomblob(8))), (SELECT `id` FROM `users` WHERE `id` = NEW.`paid_by`), NEW.`created_by`, 'purchase', -NEW.`purchase_price`, NEW.`id`, NEW.`product_name` || ', ' || NEW.`duration` || ' days' || iif(NEW.`purchased_by` = NEW.`paid_by`, '', ' (for ' || NEW.`purchased_by` || ')'), NEW.`created_at`); END;
