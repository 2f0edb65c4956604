// Where the last good offline token is kept, per license key and device. Memory by default; an app
// that must answer offline after a restart passes its own (a file, localStorage, the keychain).
// Whatever comes back from a store is verified again before it is believed. A store keeps each id
// apart: the SDK keeps a token per key and device, the latest signed time (trusted-time.ts) and an
// air-gapped request still unanswered (offline.ts) in it.

export interface TokenStore {
  get(id: string): string | null | undefined | Promise<string | null | undefined>;
  set(id: string, token: string): void | Promise<void>;
  delete(id: string): void | Promise<void>;
}

export function memoryStore(): TokenStore {
  const tokens = new Map<string, string>();
  return {
    get: (id) => tokens.get(id),
    set: (id, token) => void tokens.set(id, token),
    delete: (id) => void tokens.delete(id),
  };
}

/** A store over the Web Storage API (localStorage in a browser or Electron's renderer). */
/** The part of the Web Storage API a store needs. */
export type WebStorage = { getItem(key: string): string | null; setItem(key: string, value: string): void; removeItem(key: string): void };

export function webStorageStore(storage: WebStorage, prefix = 'keypanel-license:'): TokenStore {
  return {
    get: (id) => storage.getItem(prefix + id),
    set: (id, token) => storage.setItem(prefix + id, token),
    delete: (id) => storage.removeItem(prefix + id),
  };
}
