// The API reference page (/api/docs): Scalar served from this origin, under a policy loosened for
// that page only; every other answer keeps the app's strict one.
import { describe, expect, it } from 'vitest';
import { api } from './helpers';
import { sandbox } from './sandbox';

const APP_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

const sha256 = async (text: string) =>
  btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))));

/** The page is HTML, not JSON: the helper hands back its text. */
const page = (body: unknown) => body as string;

describe('GET /api/docs', () => {
  it('serves the Scalar reference over the OpenAPI document, its bundle from this origin', async () => {
    const res = await api('GET', '/api/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    const html = page(res.body);
    expect(html).toContain('<title>KeyPanel API reference</title>');
    const scriptSources = [...html.matchAll(/<script[^>]*\ssrc="([^"]*)"/g)].map((m) => m[1]);
    expect(scriptSources).toEqual(['/vendor/scalar-api-reference.js']);
    expect(html).toContain('"url": "/api/openapi.json"');
    expect(html).toContain('"withDefaultFonts": false');
    expect(html).toContain('"telemetry": false');
    expect(html).not.toMatch(/https?:\/\//);
  });

  it("allows the page's one inline script by its hash, inline styles, and nothing from other origins", async () => {
    const res = await api('GET', '/api/docs');
    const inline = [...page(res.body).matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    expect(inline).toHaveLength(1);
    expect(res.headers.get('content-security-policy')).toBe(
      `default-src 'self'; script-src 'self' 'sha256-${await sha256(inline[0])}'; style-src 'self' 'unsafe-inline'; ` +
        "img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; " +
        "frame-ancestors 'none'",
    );
    // The page's other security headers are the app's.
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
  });

  it("keeps the app's policy on every other answer, on the reference's own path too", async () => {
    for (const [method, path, status] of [
      ['GET', '/api/health', 200],
      ['GET', '/api/users/profile', 401],
      ['GET', '/api/nope', 404],
      ['GET', '/api/docs/', 404],
      ['POST', '/api/docs', 404],
      ['GET', '/api/docs/other', 404],
    ] as const) {
      const res = await api(method, path);
      expect(res.status, `${method} ${path}`).toBe(status);
      expect(res.headers.get('content-security-policy'), `${method} ${path}`).toBe(APP_POLICY);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it('is served in maintenance mode, whose refusals still reach the calls it makes', async () => {
    const box = await sandbox({ settings: { maintenanceMode: true } });
    expect((await box.api('GET', '/api/docs')).status).toBe(200);
    expect((await box.api('GET', '/api/users/profile')).status).toBe(503);
  });
});
