import { applyD1Migrations, env } from 'cloudflare:test';
import { saveSettings } from '../modules/settings/store';
import { TEST_SETTINGS } from './helpers';

// Setup files may run more than once; applyD1Migrations skips what is already applied.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await saveSettings(env.KV, TEST_SETTINGS);
