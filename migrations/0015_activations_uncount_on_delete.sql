-- Every counter has one owner. A device activated counts on its product (0008), so a device removed
-- uncounts there too, by trigger, whichever statement removes it (its app, its customer, the owner).
-- The code no longer moves total_activations itself. On one line, as every trigger (see 0005).
CREATE TRIGGER `activations_uncount_on_product` AFTER DELETE ON `activations` BEGIN UPDATE `products` SET `total_activations` = `total_activations` - 1 WHERE `id` = (SELECT `product_id` FROM `license_keys` WHERE `id` = OLD.`key_id`); END;--> statement-breakpoint
-- A key deleted takes its devices with it before it goes: its ON DELETE CASCADE runs after the key
-- row has gone, when the trigger above could no longer find the product to uncount them on.
CREATE TRIGGER `license_keys_remove_activations` BEFORE DELETE ON `license_keys` BEGIN DELETE FROM `activations` WHERE `key_id` = OLD.`id`; END;--> statement-breakpoint
-- From here the triggers keep the figure exact: start from the rows themselves.
UPDATE `products` SET `total_activations` = (SELECT count(*) FROM `activations` `a` JOIN `license_keys` `k` ON `k`.`id` = `a`.`key_id` WHERE `k`.`product_id` = `products`.`id`);
