// The settings document lives in KV under one key. Reads go through a per-isolate cache
// that lives a few seconds, so the hot paths do not pay a KV read on every request.
import { DEFAULT_SETTINGS, settingsSchema, type Settings } from './schemas';
import { isolateCache } from '../../platform/isolate-cache';

export const SETTINGS_KV_KEY = 'settings';

const cache = isolateCache<KVNamespace, Settings>('settings');

export async function getSettings(kv: KVNamespace, now = Date.now()): Promise<Settings> {
  const cached = cache.get(kv, now);
  if (cached) return cached;
  const stored = await kv.get<unknown>(SETTINGS_KV_KEY, 'json');
  // A document written by an older version keeps its valid fields; missing ones take defaults.
  const parsed = settingsSchema.safeParse({ ...DEFAULT_SETTINGS, ...(isObject(stored) ? stored : {}) });
  const value = parsed.success ? parsed.data : DEFAULT_SETTINGS;
  return cache.set(kv, value, now);
}

export async function saveSettings(kv: KVNamespace, settings: Settings): Promise<Settings> {
  const value = settingsSchema.parse(settings);
  await kv.put(SETTINGS_KV_KEY, JSON.stringify(value));
  return cache.set(kv, value);
}

/** Forget the cached document (tests, and after a write from another isolate is known). */
export function clearSettingsCache() {
  cache.clear();
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
