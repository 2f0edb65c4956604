-- A reseller's figures (issue 48), kept as rows change, so My Statistics and the owner's comparison
-- read a row per day and per product instead of walking the reseller's ledger, customers and keys
-- (a reseller selling ten times as much made them read ten times the rows):
-- - reseller_figures: per account, all time: its customers (users.reseller_id) and the credits its
--   commission rows earned and its purchase rows spent, and the commissions' count.
-- - reseller_key_counts: the keys it bought for customers (created_by, generation_method 'reseller')
--   by stored status.
-- - reseller_days: credits earned and spent per UTC day (milliseconds / 86,400,000).
-- - reseller_products and reseller_product_days: the products its ledger rows touched, and per
--   product the running totals through each day with a row (a period is two rows a product: through
--   its last day minus through the day before its first). A ledger row counts under the product of
--   the key it names as the row is written, so a key deleted later keeps counting under its product;
--   a row whose key was gone when written counts under product '' ("Deleted keys").
-- The view reseller_sale is how the triggers add one ledger row to a product's running totals.
-- The tables are WITHOUT ROWID: a seek by primary key reads one row, not an index entry and a row.
CREATE TABLE `reseller_days` (
	`reseller_id` text NOT NULL,
	`day` integer NOT NULL,
	`earned` integer DEFAULT 0 NOT NULL,
	`spent` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`reseller_id`, `day`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `reseller_figures` (
	`reseller_id` text PRIMARY KEY NOT NULL,
	`customers` integer DEFAULT 0 NOT NULL,
	`earned` integer DEFAULT 0 NOT NULL,
	`spent` integer DEFAULT 0 NOT NULL,
	`customer_purchases` integer DEFAULT 0 NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `reseller_key_counts` (
	`reseller_id` text NOT NULL,
	`status` text NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`reseller_id`, `status`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `reseller_product_days` (
	`reseller_id` text NOT NULL,
	`product_id` text NOT NULL,
	`day` integer NOT NULL,
	`ledger_rows` integer DEFAULT 0 NOT NULL,
	`earned` integer DEFAULT 0 NOT NULL,
	`spent` integer DEFAULT 0 NOT NULL,
	`keys_for_customers` integer DEFAULT 0 NOT NULL,
	`customer_purchases` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`reseller_id`, `product_id`, `day`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `reseller_products` (
	`reseller_id` text NOT NULL,
	`product_id` text NOT NULL,
	`product_name` text,
	`product_key_tag` text,
	PRIMARY KEY(`reseller_id`, `product_id`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `reseller_figures` (`reseller_id`, `customers`, `earned`, `spent`, `customer_purchases`) SELECT `id`, sum(`c`), sum(`e`), sum(`s`), sum(`p`) FROM (SELECT `reseller_id` AS `id`, count(*) AS `c`, 0 AS `e`, 0 AS `s`, 0 AS `p` FROM `users` WHERE `reseller_id` IS NOT NULL GROUP BY `reseller_id` UNION ALL SELECT `user_id`, 0, coalesce(sum(CASE WHEN `kind` = 'commission' THEN `credits_delta` END), 0), coalesce(-sum(CASE WHEN `kind` = 'purchase' THEN `credits_delta` END), 0), count(CASE WHEN `kind` = 'commission' THEN 1 END) FROM `ledger` WHERE `kind` IN ('commission', 'purchase') GROUP BY `user_id`) GROUP BY `id`;--> statement-breakpoint
INSERT INTO `reseller_key_counts` (`reseller_id`, `status`, `n`) SELECT `created_by`, `status`, count(*) FROM `license_keys` WHERE `generation_method` = 'reseller' AND `created_by` IS NOT NULL GROUP BY `created_by`, `status`;--> statement-breakpoint
INSERT INTO `reseller_days` (`reseller_id`, `day`, `earned`, `spent`) SELECT `user_id`, `created_at` / 86400000, coalesce(sum(CASE WHEN `kind` = 'commission' THEN `credits_delta` END), 0), coalesce(-sum(CASE WHEN `kind` = 'purchase' THEN `credits_delta` END), 0) FROM `ledger` WHERE `kind` IN ('commission', 'purchase') GROUP BY `user_id`, `created_at` / 86400000;--> statement-breakpoint
INSERT INTO `reseller_products` (`reseller_id`, `product_id`, `product_name`, `product_key_tag`) SELECT l.`user_id`, coalesce(k.`product_id`, ''), max(k.`product_name`), max(k.`product_key_tag`) FROM `ledger` l LEFT JOIN `license_keys` k ON k.`id` = l.`reference` WHERE l.`kind` IN ('commission', 'purchase') GROUP BY l.`user_id`, coalesce(k.`product_id`, '');--> statement-breakpoint
INSERT INTO `reseller_product_days` (`reseller_id`, `product_id`, `day`, `ledger_rows`, `earned`, `spent`, `keys_for_customers`, `customer_purchases`) SELECT `user_id`, `product_id`, `day`, sum(`n`) OVER w, sum(`e`) OVER w, sum(`s`) OVER w, sum(`kc`) OVER w, sum(`cp`) OVER w FROM (SELECT l.`user_id`, coalesce(k.`product_id`, '') AS `product_id`, l.`created_at` / 86400000 AS `day`, count(*) AS `n`, coalesce(sum(CASE WHEN l.`kind` = 'commission' THEN l.`credits_delta` END), 0) AS `e`, coalesce(-sum(CASE WHEN l.`kind` = 'purchase' THEN l.`credits_delta` END), 0) AS `s`, count(CASE WHEN l.`kind` = 'purchase' AND k.`generation_method` = 'reseller' THEN 1 END) AS `kc`, count(CASE WHEN l.`kind` = 'commission' THEN 1 END) AS `cp` FROM `ledger` l LEFT JOIN `license_keys` k ON k.`id` = l.`reference` WHERE l.`kind` IN ('commission', 'purchase') GROUP BY 1, 2, 3) WINDOW w AS (PARTITION BY `user_id`, `product_id` ORDER BY `day`);--> statement-breakpoint
CREATE VIEW `reseller_sale` AS SELECT NULL AS `reseller_id`, NULL AS `product_id`, NULL AS `product_name`, NULL AS `product_key_tag`, NULL AS `day`, NULL AS `earned`, NULL AS `spent`, NULL AS `keys_for_customers`, NULL AS `customer_purchases`;--> statement-breakpoint
CREATE TRIGGER `reseller_sale_adds_to_reseller_figures` INSTEAD OF INSERT ON `reseller_sale` BEGIN INSERT INTO `reseller_products` (`reseller_id`, `product_id`, `product_name`, `product_key_tag`) VALUES (NEW.`reseller_id`, NEW.`product_id`, NEW.`product_name`, NEW.`product_key_tag`) ON CONFLICT (`reseller_id`, `product_id`) DO UPDATE SET `product_name` = max(`product_name`, excluded.`product_name`), `product_key_tag` = max(`product_key_tag`, excluded.`product_key_tag`); INSERT INTO `reseller_product_days` (`reseller_id`, `product_id`, `day`, `ledger_rows`, `earned`, `spent`, `keys_for_customers`, `customer_purchases`) SELECT NEW.`reseller_id`, NEW.`product_id`, NEW.`day`, coalesce(p.`ledger_rows`, 0), coalesce(p.`earned`, 0), coalesce(p.`spent`, 0), coalesce(p.`keys_for_customers`, 0), coalesce(p.`customer_purchases`, 0) FROM (SELECT 1) LEFT JOIN `reseller_product_days` p ON p.`reseller_id` = NEW.`reseller_id` AND p.`product_id` = NEW.`product_id` AND p.`day` = (SELECT `day` FROM `reseller_product_days` WHERE `reseller_id` = NEW.`reseller_id` AND `product_id` = NEW.`product_id` AND `day` < NEW.`day` ORDER BY `day` DESC LIMIT 1) WHERE true ON CONFLICT DO NOTHING; UPDATE `reseller_product_days` SET `ledger_rows` = `ledger_rows` + 1, `earned` = `earned` + NEW.`earned`, `spent` = `spent` + NEW.`spent`, `keys_for_customers` = `keys_for_customers` + NEW.`keys_for_customers`, `customer_purchases` = `customer_purchases` + NEW.`customer_purchases` WHERE `reseller_id` = NEW.`reseller_id` AND `product_id` = NEW.`product_id` AND `day` >= NEW.`day`; END;--> statement-breakpoint
CREATE TRIGGER `ledger_reseller_figures_on_insert` AFTER INSERT ON `ledger` WHEN NEW.`kind` IN ('commission', 'purchase') BEGIN INSERT INTO `reseller_days` (`reseller_id`, `day`, `earned`, `spent`) VALUES (NEW.`user_id`, NEW.`created_at` / 86400000, iif(NEW.`kind` = 'commission', NEW.`credits_delta`, 0), iif(NEW.`kind` = 'purchase', -NEW.`credits_delta`, 0)) ON CONFLICT (`reseller_id`, `day`) DO UPDATE SET `earned` = `earned` + excluded.`earned`, `spent` = `spent` + excluded.`spent`; INSERT INTO `reseller_figures` (`reseller_id`, `earned`, `spent`, `customer_purchases`) VALUES (NEW.`user_id`, iif(NEW.`kind` = 'commission', NEW.`credits_delta`, 0), iif(NEW.`kind` = 'purchase', -NEW.`credits_delta`, 0), NEW.`kind` = 'commission') ON CONFLICT (`reseller_id`) DO UPDATE SET `earned` = `earned` + excluded.`earned`, `spent` = `spent` + excluded.`spent`, `customer_purchases` = `customer_purchases` + excluded.`customer_purchases`; INSERT INTO `reseller_sale` (`reseller_id`, `product_id`, `product_name`, `product_key_tag`, `day`, `earned`, `spent`, `keys_for_customers`, `customer_purchases`) SELECT NEW.`user_id`, coalesce(k.`product_id`, ''), k.`product_name`, k.`product_key_tag`, NEW.`created_at` / 86400000, iif(NEW.`kind` = 'commission', NEW.`credits_delta`, 0), iif(NEW.`kind` = 'purchase', -NEW.`credits_delta`, 0), NEW.`kind` = 'purchase' AND k.`generation_method` IS 'reseller', NEW.`kind` = 'commission' FROM (SELECT 1) LEFT JOIN `license_keys` k ON k.`id` = NEW.`reference` WHERE NEW.`kind` = 'commission' OR k.`id` IS NOT NULL; END;--> statement-breakpoint
CREATE TRIGGER `ledger_reseller_figures_on_kind` AFTER UPDATE OF `kind` ON `ledger` WHEN NEW.`kind` IN ('commission', 'purchase') AND OLD.`kind` NOT IN ('commission', 'purchase') BEGIN INSERT INTO `reseller_days` (`reseller_id`, `day`, `earned`, `spent`) VALUES (NEW.`user_id`, NEW.`created_at` / 86400000, iif(NEW.`kind` = 'commission', NEW.`credits_delta`, 0), iif(NEW.`kind` = 'purchase', -NEW.`credits_delta`, 0)) ON CONFLICT (`reseller_id`, `day`) DO UPDATE SET `earned` = `earned` + excluded.`earned`, `spent` = `spent` + excluded.`spent`; INSERT INTO `reseller_figures` (`reseller_id`, `earned`, `spent`, `customer_purchases`) VALUES (NEW.`user_id`, iif(NEW.`kind` = 'commission', NEW.`credits_delta`, 0), iif(NEW.`kind` = 'purchase', -NEW.`credits_delta`, 0), NEW.`kind` = 'commission') ON CONFLICT (`reseller_id`) DO UPDATE SET `earned` = `earned` + excluded.`earned`, `spent` = `spent` + excluded.`spent`, `customer_purchases` = `customer_purchases` + excluded.`customer_purchases`; INSERT INTO `reseller_sale` (`reseller_id`, `product_id`, `product_name`, `product_key_tag`, `day`, `earned`, `spent`, `keys_for_customers`, `customer_purchases`) SELECT NEW.`user_id`, coalesce(k.`product_id`, ''), k.`product_name`, k.`product_key_tag`, NEW.`created_at` / 86400000, iif(NEW.`kind` = 'commission', NEW.`credits_delta`, 0), iif(NEW.`kind` = 'purchase', -NEW.`credits_delta`, 0), NEW.`kind` = 'purchase' AND k.`generation_method` IS 'reseller', NEW.`kind` = 'commission' FROM (SELECT 1) LEFT JOIN `license_keys` k ON k.`id` = NEW.`reference`; END;--> statement-breakpoint
CREATE TRIGGER `license_keys_charge_payer_by_product` AFTER INSERT ON `license_keys` WHEN NEW.`paid_by` IS NOT NULL BEGIN INSERT INTO `reseller_sale` (`reseller_id`, `product_id`, `product_name`, `product_key_tag`, `day`, `earned`, `spent`, `keys_for_customers`, `customer_purchases`) VALUES (NEW.`paid_by`, NEW.`product_id`, NEW.`product_name`, NEW.`product_key_tag`, NEW.`created_at` / 86400000, 0, NEW.`purchase_price`, NEW.`generation_method` = 'reseller', 0); END;--> statement-breakpoint
CREATE TRIGGER `users_reseller_figures_on_insert` AFTER INSERT ON `users` WHEN NEW.`reseller_id` IS NOT NULL BEGIN INSERT INTO `reseller_figures` (`reseller_id`, `customers`) VALUES (NEW.`reseller_id`, 1) ON CONFLICT (`reseller_id`) DO UPDATE SET `customers` = `customers` + 1; END;--> statement-breakpoint
CREATE TRIGGER `users_reseller_figures_on_change` AFTER UPDATE OF `reseller_id` ON `users` WHEN OLD.`reseller_id` IS NOT NEW.`reseller_id` BEGIN UPDATE `reseller_figures` SET `customers` = `customers` - 1 WHERE `reseller_id` = OLD.`reseller_id`; INSERT INTO `reseller_figures` (`reseller_id`, `customers`) SELECT NEW.`reseller_id`, 1 WHERE NEW.`reseller_id` IS NOT NULL ON CONFLICT (`reseller_id`) DO UPDATE SET `customers` = `customers` + 1; END;--> statement-breakpoint
CREATE TRIGGER `users_reseller_figures_on_delete` AFTER DELETE ON `users` WHEN OLD.`reseller_id` IS NOT NULL BEGIN UPDATE `reseller_figures` SET `customers` = `customers` - 1 WHERE `reseller_id` = OLD.`reseller_id`; END;--> statement-breakpoint
CREATE TRIGGER `license_keys_reseller_figures_on_insert` AFTER INSERT ON `license_keys` WHEN NEW.`generation_method` = 'reseller' AND NEW.`created_by` IS NOT NULL BEGIN INSERT INTO `reseller_key_counts` (`reseller_id`, `status`, `n`) VALUES (NEW.`created_by`, NEW.`status`, 1) ON CONFLICT (`reseller_id`, `status`) DO UPDATE SET `n` = `n` + 1; END;--> statement-breakpoint
CREATE TRIGGER `license_keys_reseller_figures_on_delete` AFTER DELETE ON `license_keys` WHEN OLD.`generation_method` = 'reseller' AND OLD.`created_by` IS NOT NULL BEGIN UPDATE `reseller_key_counts` SET `n` = `n` - 1 WHERE `reseller_id` = OLD.`created_by` AND `status` = OLD.`status`; END;--> statement-breakpoint
CREATE TRIGGER `license_keys_reseller_figures_on_change` AFTER UPDATE OF `status`, `created_by`, `generation_method` ON `license_keys` WHEN (OLD.`generation_method` = 'reseller' AND OLD.`created_by` IS NOT NULL) OR (NEW.`generation_method` = 'reseller' AND NEW.`created_by` IS NOT NULL) BEGIN UPDATE `reseller_key_counts` SET `n` = `n` - 1 WHERE OLD.`generation_method` = 'reseller' AND `reseller_id` = OLD.`created_by` AND `status` = OLD.`status`; INSERT INTO `reseller_key_counts` (`reseller_id`, `status`, `n`) SELECT NEW.`created_by`, NEW.`status`, 1 WHERE NEW.`generation_method` = 'reseller' AND NEW.`created_by` IS NOT NULL ON CONFLICT (`reseller_id`, `status`) DO UPDATE SET `n` = `n` + 1; END;
