// The settings module's public surface: what other modules may use of it. Its routes are mounted by
// worker/app.ts from routes.ts; everything else in the folder is the module's own.
export { type PaymentSettings, type Settings } from './schemas';
export { assertWithinActivationLimit } from './limits';
export { getSettings } from './store';
