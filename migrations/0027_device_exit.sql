-- One way a device leaves a key (issue 42): every removal writes a device_removals row, spent from the
-- swap budget unless exempt (counted = 0: the owner's removals, a transfer's); an air-gapped request
-- remembers the activation it made, the only one its device's proof frees without a held slot.
ALTER TABLE `device_removals` ADD `counted` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `offline_activations` ADD `activation_id` text;