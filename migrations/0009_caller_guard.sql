-- The guard that opens every round trip of a signed-in write (worker/db/session.ts). Inserting into
-- the view writes nothing. Its trigger aborts the whole batch when the caller is not an active
-- account (CALLER_INACTIVE) or lacks the role the route needs (CALLER_ROLE), so no statement of the
-- write commits for a caller deactivated or demoted a moment earlier.
-- On one line, as every trigger (see 0005).
CREATE VIEW `caller_guard` AS SELECT NULL AS `user_id`, NULL AS `min_role`;
--> statement-breakpoint
CREATE TRIGGER `caller_guard_check` INSTEAD OF INSERT ON `caller_guard` BEGIN SELECT RAISE(ABORT, 'CALLER_INACTIVE') WHERE NOT EXISTS (SELECT 1 FROM `users` WHERE `id` = NEW.`user_id` AND `is_active` = 1); SELECT RAISE(ABORT, 'CALLER_ROLE') WHERE NOT EXISTS (SELECT 1 FROM `users` WHERE `id` = NEW.`user_id` AND (NEW.`min_role` = 'user' OR `role` = 'owner' OR (NEW.`min_role` = 'reseller' AND `role` = 'reseller'))); END;
