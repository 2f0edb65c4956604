// The settings document lives in KV under one key. Reads go through a per-isolate cache
// that lives a few seconds, so the hot paths do not pay a KV read on every request.
import { DEFAULT_SETTINGS, settingsSchema, type Settings } from '../schemas/settings';

export const SETTINGS_KV_KEY = 'settings';
const CACHE_MS = 5_000;

let cache: { value: Settings; until: number; kv: KVNamespace } | null = null;

export async function getSettings(kv: KVNamespace, now = Date.now()): Promise<Settings> {
  if (cache && cache.kv === kv && cache.until > now) return cache.value;
  const stored = await kv.get<unknown>(SETTINGS_KV_KEY, 'json');
  // A document written by an older version keeps its valid fields; missing ones take defaults.
  const parsed = settingsSchema.safeParse({ ...DEFAULT_SETTINGS, ...(isObject(stored) ? stored : {}) });
  const value = parsed.success ? parsed.data : DEFAULT_SETTINGS;
  cache = { value, until: now + CACHE_MS, kv };
  return value;
}

export async function saveSettings(kv: KVNamespace, settings: Settings): Promise<Settings> {
  const value = settingsSchema.parse(settings);
  await kv.put(SETTINGS_KV_KEY, JSON.stringify(value));
  cache = { value, until: Date.now() + CACHE_MS, kv };
  return value;
}

/** Forget the cached document (tests, and after a write from another isolate is known). */
export function clearSettingsCache() {
  cache = null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
