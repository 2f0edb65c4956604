-- A device activated on a key starts a generated key's clock (its first use, status used, and its
-- expiry counted from that moment: duration days of 86,400,000 ms) and counts on the key's product.
-- The activation no longer runs these as statements of its own. An insert that does nothing (the
-- device already there, the limit reached) fires nothing. On one line, as every trigger (see 0005).
CREATE TRIGGER `activations_start_key_and_count_on_product` AFTER INSERT ON `activations` BEGIN UPDATE `license_keys` SET `first_used_at` = COALESCE(`first_used_at`, NEW.`activated_at`), `expires_at` = CASE WHEN `status` = 'available' THEN NEW.`activated_at` + `duration` * 86400000 ELSE `expires_at` END, `status` = CASE WHEN `status` = 'available' THEN 'used' ELSE `status` END WHERE `id` = NEW.`key_id`; UPDATE `products` SET `total_activations` = `total_activations` + 1 WHERE `id` = (SELECT `product_id` FROM `license_keys` WHERE `id` = NEW.`key_id`); END;
