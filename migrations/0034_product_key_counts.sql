-- The owner's key search reads rows bounded by its page, not by the keys of the products it matches
-- (issue 48; modules/keys/admin-keys.ts):
-- - product_key_counts: every key by its product and stored status, so a matched product's total is a
--   row per status instead of a walk of its keys.
-- - key_tag_counts: the keys whose value has a dash, by the part before the first dash and their
--   product, so a keyTag search skips the tag's keys in its key-prefix lookup unless one of them
--   belongs to a product the search did not match.
-- - license_keys_product_idx holds the status before the creation: a product's newest keys of one
--   status come straight from it.
CREATE TABLE `key_tag_counts` (
	`tag` text NOT NULL,
	`product_id` text NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`tag`, `product_id`)
);
--> statement-breakpoint
CREATE TABLE `product_key_counts` (
	`product_id` text NOT NULL,
	`status` text NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`product_id`, `status`)
);
--> statement-breakpoint
DROP INDEX `license_keys_product_idx`;--> statement-breakpoint
CREATE INDEX `license_keys_product_idx` ON `license_keys` (`product_id`,`status`,`created_at`,`id`,`expires_at`);--> statement-breakpoint
INSERT INTO `product_key_counts` (`product_id`, `status`, `n`) SELECT `product_id`, `status`, count(*) FROM `license_keys` GROUP BY `product_id`, `status`;--> statement-breakpoint
INSERT INTO `key_tag_counts` (`tag`, `product_id`, `n`) SELECT substr(`key`, 1, instr(`key`, '-') - 1), `product_id`, count(*) FROM `license_keys` WHERE instr(`key`, '-') > 0 GROUP BY 1, 2;--> statement-breakpoint
CREATE TRIGGER `license_keys_count_by_product_on_insert` AFTER INSERT ON `license_keys` BEGIN INSERT INTO `product_key_counts` (`product_id`, `status`, `n`) VALUES (NEW.`product_id`, NEW.`status`, 1) ON CONFLICT (`product_id`, `status`) DO UPDATE SET `n` = `n` + 1; END;--> statement-breakpoint
CREATE TRIGGER `license_keys_count_by_product_on_delete` AFTER DELETE ON `license_keys` BEGIN UPDATE `product_key_counts` SET `n` = `n` - 1 WHERE `product_id` = OLD.`product_id` AND `status` = OLD.`status`; END;--> statement-breakpoint
CREATE TRIGGER `license_keys_count_by_product_on_change` AFTER UPDATE OF `status`, `product_id` ON `license_keys` WHEN OLD.`status` != NEW.`status` OR OLD.`product_id` != NEW.`product_id` BEGIN UPDATE `product_key_counts` SET `n` = `n` - 1 WHERE `product_id` = OLD.`product_id` AND `status` = OLD.`status`; INSERT INTO `product_key_counts` (`product_id`, `status`, `n`) VALUES (NEW.`product_id`, NEW.`status`, 1) ON CONFLICT (`product_id`, `status`) DO UPDATE SET `n` = `n` + 1; END;--> statement-breakpoint
CREATE TRIGGER `license_keys_count_by_tag_on_insert` AFTER INSERT ON `license_keys` WHEN instr(NEW.`key`, '-') > 0 BEGIN INSERT INTO `key_tag_counts` (`tag`, `product_id`, `n`) VALUES (substr(NEW.`key`, 1, instr(NEW.`key`, '-') - 1), NEW.`product_id`, 1) ON CONFLICT (`tag`, `product_id`) DO UPDATE SET `n` = `n` + 1; END;--> statement-breakpoint
CREATE TRIGGER `license_keys_count_by_tag_on_delete` AFTER DELETE ON `license_keys` WHEN instr(OLD.`key`, '-') > 0 BEGIN UPDATE `key_tag_counts` SET `n` = `n` - 1 WHERE `tag` = substr(OLD.`key`, 1, instr(OLD.`key`, '-') - 1) AND `product_id` = OLD.`product_id`; END;--> statement-breakpoint
CREATE TRIGGER `license_keys_count_by_tag_on_change` AFTER UPDATE OF `key`, `product_id` ON `license_keys` WHEN OLD.`key` != NEW.`key` OR OLD.`product_id` != NEW.`product_id` BEGIN UPDATE `key_tag_counts` SET `n` = `n` - 1 WHERE instr(OLD.`key`, '-') > 0 AND `tag` = substr(OLD.`key`, 1, instr(OLD.`key`, '-') - 1) AND `product_id` = OLD.`product_id`; INSERT INTO `key_tag_counts` (`tag`, `product_id`, `n`) SELECT substr(NEW.`key`, 1, instr(NEW.`key`, '-') - 1), NEW.`product_id`, 1 WHERE instr(NEW.`key`, '-') > 0 ON CONFLICT (`tag`, `product_id`) DO UPDATE SET `n` = `n` + 1; END;
