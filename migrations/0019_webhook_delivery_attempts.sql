-- Every webhook delivery attempt is kept (issue 28): one row per attempt, with when it started, the
-- status code (NULL when no answer came, `error` then says why), how long it took and the first KB of
-- the answer. Written in the batch that records the attempt on its delivery; deleted with it.
CREATE TABLE `webhook_delivery_attempts` (
	`delivery_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`started_at` integer NOT NULL,
	`response_status` integer,
	`response_body` text,
	`error` text,
	`duration_ms` integer NOT NULL,
	PRIMARY KEY(`delivery_id`, `attempt`),
	FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "webhook_delivery_attempts_answer_check" CHECK(length(CAST("webhook_delivery_attempts"."response_body" AS BLOB)) <= 1024)
);
--> statement-breakpoint
-- Deliveries attempted before this migration kept their last attempt only: it becomes their one row
-- (an answer longer than the bound, which the old decoding could make, is left out).
INSERT INTO `webhook_delivery_attempts` (`delivery_id`, `attempt`, `started_at`, `response_status`, `response_body`, `error`, `duration_ms`)
SELECT `id`, `attempts`, `last_attempt_at`, `response_status`,
       CASE WHEN length(CAST(`response_body` AS BLOB)) <= 1024 THEN `response_body` END,
       CASE WHEN `response_status` IS NULL THEN `error` END,
       coalesce(`duration_ms`, 0)
  FROM `webhook_deliveries`
 WHERE `attempts` > 0 AND `last_attempt_at` IS NOT NULL;
