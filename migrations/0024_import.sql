-- Imported keys (issue 34): when the owner imported a key from another system or an export. Added
-- with ALTER TABLE, so license_keys is not rebuilt under its triggers (the generation method's CHECK
-- stays as it is: an imported key keeps the method its file gives, or 'automatic').
ALTER TABLE `license_keys` ADD `imported_at` integer;