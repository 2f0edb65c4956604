// The owner's changes to the settings document, each one audited, and the rules other features
// take from the settings.
import type { DB } from '../../platform/db/client';

import type { Actor } from '../../platform/db/schema';
import { clearSettingsCache, getSettings, saveSettings } from './store';
import type { Env } from '../../platform/env';
import { mailTransport } from '../../platform/mail';
import { DEFAULT_SETTINGS, settingsSchema, type ServerStatus, type Settings } from './schemas';
import { recordAudit } from '../audit';

type SettingsContext = { db: DB; kv: KVNamespace; actor: Actor; ip: string | null };

function changedFields(before: Settings, after: Settings) {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const field of Object.keys(after) as (keyof Settings)[]) {
    // By value: the card top-up settings are an object of their own.
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) changes[field] = { from: before[field], to: after[field] };
  }
  return changes;
}

/**
 * Stores a new document. KV and D1 cannot share a transaction: the audit row goes first, in the
 * request's guarded batch (platform/db/session.ts), and the document is stored only when it committed, so a
 * change by an owner demoted a moment ago leaves nothing behind, and the log never misses a change.
 * Should the KV write then fail, the log records a change that did not happen, which the next save
 * shows (its diff starts from what KV holds).
 */
async function storeSettings(ctx: SettingsContext, action: 'settings.update' | 'settings.reset', next: Settings): Promise<Settings> {
  // The stored document, not this isolate's few-seconds-old copy, for an exact audit diff.
  clearSettingsCache();
  const before = await getSettings(ctx.kv);
  const value = settingsSchema.parse(next);
  await recordAudit(ctx.db, ctx.actor, action, { type: 'settings', id: null }, { changes: changedFields(before, value) }, ctx.ip);
  return saveSettings(ctx.kv, value);
}

/** Replaces the whole document. */
export const replaceSettings = (ctx: SettingsContext, next: Settings) => storeSettings(ctx, 'settings.update', next);

export const resetSettings = (ctx: SettingsContext) => storeSettings(ctx, 'settings.reset', DEFAULT_SETTINGS);

/** What the server's configuration allows, for the owner's Settings page. */
export function serverStatus(env: Pick<Env, 'MAIL_API_URL' | 'LOCAL_DEVELOPMENT'>): ServerStatus {
  const transport = mailTransport(env);
  return {
    mail: {
      transport,
      message:
        transport === 'none'
          ? 'No mail service is configured (MAIL_API_URL), so password reset and email verification links are refused: customers cannot reset a password or verify an address (and so cannot pay by card). Set MAIL_API_URL, MAIL_API_KEY and MAIL_FROM (docs/security.md).'
          : null,
    },
  };
}
