-- The shop's figures, kept as rows change (issue 48), so the owner's screens read a few rows
-- instead of walking the tables they count (D1 bills every row read, and a 2,000,000-key shop made
-- each Overview, key list and System Analytics read millions):
-- - shop_counts: every key by its stored status and every account by role, one row each. Each status
--   and role has its row from here on (a zero included), so the triggers only add and take.
-- - daily_figures and daily_sales: System Analytics per UTC day (the day number: milliseconds /
--   86,400,000), as its rows go in and out: a purchase's revenue (its ledger debit), keys sold by
--   product, accounts opened and devices activated that still exist, as the queries over the rows
--   counted them.
CREATE TABLE `daily_figures` (
	`day` integer PRIMARY KEY NOT NULL,
	`revenue` integer DEFAULT 0 NOT NULL,
	`new_users` integer DEFAULT 0 NOT NULL,
	`activations` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `daily_sales` (
	`day` integer NOT NULL,
	`product_id` text NOT NULL,
	`product_name` text NOT NULL,
	`product_key_tag` text NOT NULL,
	`keys_sold` integer DEFAULT 0 NOT NULL,
	`revenue` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`day`, `product_id`)
);
--> statement-breakpoint
CREATE TABLE `shop_counts` (
	`kind` text NOT NULL,
	`value` text NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`kind`, `value`)
);
--> statement-breakpoint
INSERT INTO `shop_counts` (`kind`, `value`, `n`) SELECT 'key_status', s.`value`, (SELECT count(*) FROM `license_keys` WHERE `status` = s.`value`) FROM json_each('["available","used","revoked","expired"]') s;--> statement-breakpoint
INSERT INTO `shop_counts` (`kind`, `value`, `n`) SELECT 'user_role', r.`value`, (SELECT count(*) FROM `users` WHERE `role` = r.`value`) FROM json_each('["user","reseller","owner"]') r;--> statement-breakpoint
CREATE TRIGGER `license_keys_count_status_on_insert` AFTER INSERT ON `license_keys` BEGIN UPDATE `shop_counts` SET `n` = `n` + 1 WHERE `kind` = 'key_status' AND `value` = NEW.`status`; END;--> statement-breakpoint
CREATE TRIGGER `license_keys_count_status_on_delete` AFTER DELETE ON `license_keys` BEGIN UPDATE `shop_counts` SET `n` = `n` - 1 WHERE `kind` = 'key_status' AND `value` = OLD.`status`; END;--> statement-breakpoint
CREATE TRIGGER `license_keys_count_status_on_change` AFTER UPDATE OF `status` ON `license_keys` WHEN OLD.`status` != NEW.`status` BEGIN UPDATE `shop_counts` SET `n` = `n` + (CASE WHEN `value` = NEW.`status` THEN 1 ELSE -1 END) WHERE `kind` = 'key_status' AND `value` IN (OLD.`status`, NEW.`status`); END;--> statement-breakpoint
CREATE TRIGGER `users_count_role_on_insert` AFTER INSERT ON `users` BEGIN UPDATE `shop_counts` SET `n` = `n` + 1 WHERE `kind` = 'user_role' AND `value` = NEW.`role`; END;--> statement-breakpoint
CREATE TRIGGER `users_count_role_on_delete` AFTER DELETE ON `users` BEGIN UPDATE `shop_counts` SET `n` = `n` - 1 WHERE `kind` = 'user_role' AND `value` = OLD.`role`; END;--> statement-breakpoint
CREATE TRIGGER `users_count_role_on_change` AFTER UPDATE OF `role` ON `users` WHEN OLD.`role` != NEW.`role` BEGIN UPDATE `shop_counts` SET `n` = `n` + (CASE WHEN `value` = NEW.`role` THEN 1 ELSE -1 END) WHERE `kind` = 'user_role' AND `value` IN (OLD.`role`, NEW.`role`); END;--> statement-breakpoint
INSERT INTO `daily_figures` (`day`, `revenue`, `new_users`, `activations`) SELECT d.`day`, coalesce((SELECT -sum(`credits_delta`) FROM `ledger` WHERE `kind` = 'purchase' AND `created_at` / 86400000 = d.`day`), 0), (SELECT count(*) FROM `users` WHERE `created_at` / 86400000 = d.`day`), (SELECT count(*) FROM `activations` WHERE `activated_at` / 86400000 = d.`day`) FROM (SELECT `created_at` / 86400000 AS `day` FROM `ledger` WHERE `kind` = 'purchase' UNION SELECT `created_at` / 86400000 FROM `users` UNION SELECT `activated_at` / 86400000 FROM `activations`) d;--> statement-breakpoint
INSERT INTO `daily_sales` (`day`, `product_id`, `product_name`, `product_key_tag`, `keys_sold`, `revenue`) SELECT `created_at` / 86400000, `product_id`, max(`product_name`), max(`product_key_tag`), count(*), coalesce(sum(`purchase_price`), 0) FROM `license_keys` WHERE `purchased_at` IS NOT NULL GROUP BY `created_at` / 86400000, `product_id`;--> statement-breakpoint
CREATE TRIGGER `ledger_revenue_by_day` AFTER INSERT ON `ledger` WHEN NEW.`kind` = 'purchase' BEGIN INSERT INTO `daily_figures` (`day`, `revenue`) VALUES (NEW.`created_at` / 86400000, -NEW.`credits_delta`) ON CONFLICT (`day`) DO UPDATE SET `revenue` = `revenue` + excluded.`revenue`; END;--> statement-breakpoint
CREATE TRIGGER `users_new_by_day_on_insert` AFTER INSERT ON `users` BEGIN INSERT INTO `daily_figures` (`day`, `new_users`) VALUES (NEW.`created_at` / 86400000, 1) ON CONFLICT (`day`) DO UPDATE SET `new_users` = `new_users` + 1; END;--> statement-breakpoint
CREATE TRIGGER `users_new_by_day_on_delete` AFTER DELETE ON `users` BEGIN UPDATE `daily_figures` SET `new_users` = `new_users` - 1 WHERE `day` = OLD.`created_at` / 86400000; END;--> statement-breakpoint
CREATE TRIGGER `activations_by_day_on_insert` AFTER INSERT ON `activations` BEGIN INSERT INTO `daily_figures` (`day`, `activations`) VALUES (NEW.`activated_at` / 86400000, 1) ON CONFLICT (`day`) DO UPDATE SET `activations` = `activations` + 1; END;--> statement-breakpoint
CREATE TRIGGER `activations_by_day_on_delete` AFTER DELETE ON `activations` BEGIN UPDATE `daily_figures` SET `activations` = `activations` - 1 WHERE `day` = OLD.`activated_at` / 86400000; END;--> statement-breakpoint
CREATE TRIGGER `license_keys_sold_by_day_on_insert` AFTER INSERT ON `license_keys` WHEN NEW.`purchased_at` IS NOT NULL BEGIN INSERT INTO `daily_sales` (`day`, `product_id`, `product_name`, `product_key_tag`, `keys_sold`, `revenue`) VALUES (NEW.`created_at` / 86400000, NEW.`product_id`, NEW.`product_name`, NEW.`product_key_tag`, 1, coalesce(NEW.`purchase_price`, 0)) ON CONFLICT (`day`, `product_id`) DO UPDATE SET `keys_sold` = `keys_sold` + 1, `revenue` = `revenue` + excluded.`revenue`, `product_name` = excluded.`product_name`, `product_key_tag` = excluded.`product_key_tag`; END;--> statement-breakpoint
CREATE TRIGGER `license_keys_sold_by_day_on_delete` AFTER DELETE ON `license_keys` WHEN OLD.`purchased_at` IS NOT NULL BEGIN UPDATE `daily_sales` SET `keys_sold` = `keys_sold` - 1, `revenue` = `revenue` - coalesce(OLD.`purchase_price`, 0) WHERE `day` = OLD.`created_at` / 86400000 AND `product_id` = OLD.`product_id`; END;
