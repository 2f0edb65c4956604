// The security headers on every answer. One page, the API reference, needs a looser
// Content-Security-Policy than the app's; it is loosened there only, and only as far as that page needs.
import type { MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

export const API_DOCS_PATH = '/api/docs';

type SecureHeadersOptions = NonNullable<Parameters<typeof secureHeaders>[0]>;
type Policy = NonNullable<SecureHeadersOptions['contentSecurityPolicy']>;

/** The app's policy: nothing from other origins, and no inline script or style. */
export const APP_CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  // data: for the two-factor QR code.
  imgSrc: ["'self'", 'data:'],
  fontSrc: ["'self'"],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
} satisfies Policy;

type PermissionsPolicy = NonNullable<SecureHeadersOptions['permissionsPolicy']>;

/**
 * What the browser may let this origin (and any frame in it) use: nothing the app does not use. The
 * app copies license keys to the clipboard, so writing to it stays allowed for its own pages; the
 * card payment is Stripe Checkout's own page, so `payment` is off here too. Only features browsers
 * know: Chromium logs "Unrecognized feature" on every page for one it does not (it did for
 * `bluetooth`, which it never shipped as a policy; Web Bluetooth needs a user's pick anyway).
 */
export const APP_PERMISSIONS_POLICY = {
  accelerometer: [],
  autoplay: [],
  browsingTopics: [],
  camera: [],
  clipboardRead: [],
  clipboardWrite: ['self'],
  displayCapture: [],
  encryptedMedia: [],
  fullscreen: [],
  geolocation: [],
  gyroscope: [],
  hid: [],
  idleDetection: [],
  magnetometer: [],
  microphone: [],
  midi: [],
  payment: [],
  pictureInPicture: [],
  publickeyCredentialsGet: [],
  screenWakeLock: [],
  serial: [],
  syncXhr: [],
  usb: [],
  xrSpatialTracking: [],
} satisfies PermissionsPolicy;

const options = {
  contentSecurityPolicy: APP_CONTENT_SECURITY_POLICY,
  permissionsPolicy: APP_PERMISSIONS_POLICY,
  xFrameOptions: 'DENY',
  referrerPolicy: 'strict-origin-when-cross-origin',
  strictTransportSecurity: 'max-age=31536000; includeSubDomains',
  crossOriginEmbedderPolicy: false,
} satisfies SecureHeadersOptions;

const everyAnswer = secureHeaders(options);
// The reference page sets its own policy (routes/api-docs.ts) and keeps it; anything else answered on
// that path (an error) still gets the app's.
const apiDocsAnswer = secureHeaders({ ...options, overwrite: false });

export const securityHeaders: MiddlewareHandler = (c, next) =>
  c.req.path === API_DOCS_PATH ? apiDocsAnswer(c, next) : everyAnswer(c, next);

/**
 * The API reference's policy. Scalar boots from one inline script, allowed by its hash alone, and
 * injects its stylesheets at run time, which takes inline styles. Its requests ("try it") and its
 * bundle stay on this origin like everything else.
 */
export async function apiDocsContentSecurityPolicy(html: string): Promise<string> {
  const policy: Record<string, string[]> = {
    ...APP_CONTENT_SECURITY_POLICY,
    scriptSrc: ["'self'", ...(await inlineScriptHashes(html))],
    styleSrc: ["'self'", "'unsafe-inline'"],
  };
  return Object.entries(policy)
    .map(([directive, sources]) => `${directive.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${sources.join(' ')}`)
    .join('; ');
}

/** A 'sha256-…' source for each inline script of a page, so that exactly those may run. */
async function inlineScriptHashes(html: string): Promise<string[]> {
  const scripts = [...html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/gi)].map((m) => m[1]);
  return Promise.all(
    scripts.map(async (script) => {
      const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(script));
      return `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`;
    }),
  );
}
