// One Idempotency-Key per attempt: a retry of the same request (after a timeout or a network
// error) sends the same key, so the server charges once; a new request gets a new key.
import { useRef } from 'react';

function newKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

export function useIdempotencyKey() {
  const current = useRef<{ request: string; key: string } | null>(null);
  return {
    /** The key for this request: the same as last time while the request is the same. */
    keyFor(request: string): string {
      if (current.current?.request !== request) current.current = { request, key: newKey() };
      return current.current.key;
    },
    /** After a success, the next request is a new one even if it looks the same. */
    done() {
      current.current = null;
    },
  };
}
