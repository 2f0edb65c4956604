import type { Context } from 'hono';
import { networkOf } from './network';

/** Where a request came from, as sessions and the security log record it. */
export type SessionOrigin = { ipAddress: string | null; userAgent: string | null; location: string | null };

export function clientIp(c: Context): string | null {
  return c.req.header('cf-connecting-ip') ?? c.req.header('x-real-ip') ?? null;
}

/** What per-address limits count: the address, or for IPv6 its /64 (see platform/network.ts). */
export const clientNetwork = (c: Context) => networkOf(clientIp(c));

/** Where a request comes from, from the headers and Cloudflare's request data. */
export function requestOrigin(c: Context): SessionOrigin {
  const cf = (c.req.raw as Request & { cf?: { city?: string; country?: string; region?: string } }).cf;
  const place = [cf?.city, cf?.region, cf?.country].filter(Boolean).join(', ');
  return { ipAddress: clientIp(c), userAgent: c.req.header('user-agent') ?? null, location: place || null };
}

/** Runs work after the response where the runtime allows (inBackground, bound to its request). */
export type Later = (work: Promise<unknown> | undefined) => Promise<void>;

/**
 * Work that may finish after the response (falls back to awaiting where there is no execution
 * context). Nothing to do (undefined) registers nothing: waitUntil is a call into the runtime.
 */
export async function inBackground(c: Context, work: Promise<unknown> | undefined) {
  if (!work) return;
  try {
    c.executionCtx.waitUntil(work);
  } catch {
    await work;
  }
}

/** JSON already written as text (by SQLite, say), carrying the type of what it encodes. */
export type JsonText<T> = string & { readonly encodes?: T };

/** Answers JSON text as it is, without parsing and writing it again. */
export const jsonText = <T>(c: Context, text: JsonText<T>, status: 200 | 201 = 200) =>
  c.body(text, status, { 'Content-Type': 'application/json' });
