-- Every activation wrote three index entries nothing reads (issue 48, rows written per request):
-- - activations_activated_idx: no query filters or orders activations by their time alone (the analytics
--   read the daily rollups, daily_figures); a key's devices are read by activations_key_device_unique.
-- - key_events_from_idx and key_events_to_idx: only a transfer has a giver and a receiver, and the
--   transfers list asks for one of them by value, which the partial index answers; the activations and
--   regenerations (most of a key's history) no longer add an entry with NULLs to both.
DROP INDEX `activations_activated_idx`;--> statement-breakpoint
DROP INDEX `key_events_from_idx`;--> statement-breakpoint
DROP INDEX `key_events_to_idx`;--> statement-breakpoint
CREATE INDEX `key_events_from_idx` ON `key_events` (`from_user_id`,`at`) WHERE "key_events"."from_user_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `key_events_to_idx` ON `key_events` (`to_user_id`,`at`) WHERE "key_events"."to_user_id" IS NOT NULL;