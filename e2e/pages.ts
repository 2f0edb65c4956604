// The app's pages as the browser tests visit them all (e2e/console.test.ts, e2e/a11y.test.ts).
import { TAB_IDS } from '../web/src/features/admin/tabs';

/** What a guest opens. */
export const GUEST_PAGES = ['/login', '/register', '/forgot-password', '/reset-password?token=nothing'];
/** What every signed-in user opens (an unknown address among them: the not-found page). */
export const CUSTOMER_PAGES = [
  '/dashboard',
  '/my-keys',
  '/purchase',
  '/products',
  '/exchange',
  '/add-balance',
  '/settings/security',
  '/no-such-page',
];
/** What the owner opens beyond a customer's pages: System Analytics and every Admin Panel tab (tabs.ts's TAB_IDS). */
export const ADMIN_PAGES = ['/system-analytics', ...TAB_IDS.map((tab) => `/admin?tab=${tab}`)];
