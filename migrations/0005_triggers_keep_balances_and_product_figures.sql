-- The ledger row of a purchase is its debit: inserting it takes the credits from the payer (BEFORE, so
-- a RETURNING clause on the insert reads the balance after the debit). The CHECK on users.credits
-- fails the insert, and so the whole batch of the purchase, when the credits are not there.
-- Each trigger is written on one line, and these comments hold no quote or semicolon: the remote D1
-- query endpoint splits a migration into statements and has cut multi-line trigger bodies.
CREATE TRIGGER `ledger_purchase_debits_payer` BEFORE INSERT ON `ledger` WHEN NEW.`kind` = 'purchase' BEGIN UPDATE `users` SET `credits` = `credits` + NEW.`credits_delta` WHERE `id` = NEW.`user_id`; END;--> statement-breakpoint
-- Every key made counts on its product: generated, and, when it was bought (it has a buyer), sold
-- for its price. The purchase and the bulk generation no longer keep these figures themselves.
CREATE TRIGGER `license_keys_count_on_product` AFTER INSERT ON `license_keys` BEGIN UPDATE `products` SET `total_generated` = `total_generated` + 1, `total_sold` = `total_sold` + (NEW.`purchased_by` IS NOT NULL), `revenue` = `revenue` + coalesce(NEW.`purchase_price`, 0) * (NEW.`purchased_by` IS NOT NULL) WHERE `id` = NEW.`product_id`; END;
