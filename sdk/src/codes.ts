// What an app does with each result code: one entry per code, so adding a code to the licensing API
// (and so to SERVER_CODES, which a test holds to the API's list) fails to compile here until it is
// handled. `nextStep` is what an app's licensing screen can switch on.
import type { ResultCode } from './types.js';

/**
 * - `use`: the software may run.
 * - `activate`: this device holds nothing on the key: activate it (or, for a floating key, again).
 * - `replace-a-device`: the key is full: offer to replace one of `devices` (replaceDevice), or wait for `slotFreesAt`.
 * - `wait`: nothing to do now: try again at the moment the answer names (`slotFreesAt`, `nextSwapAt`,
 *   `license.usage.nextRefillAt`) or later (a key out of uses waits for its refill or the owner's top-up).
 * - `buy`: the key (or trial) is over, or there is none: send the customer to buy one.
 * - `stop`: the device let its slot go: stop using the software.
 * - `fix-request`: the app sent something the API refused (a bug, a mistyped key, or a key its holder
 *   replaced by a new value: ask the customer for the new key).
 * - `retry-later`: no trustworthy answer now; the kept offline token answers meanwhile.
 * - `reject`: the answer was forged or tampered with: trust nothing in it.
 * - `fix-clock`: the device's clock is behind a time the server signed: ask for it to be set right.
 */
export type NextStep =
  'use' | 'activate' | 'replace-a-device' | 'wait' | 'buy' | 'stop' | 'fix-request' | 'retry-later' | 'reject' | 'fix-clock';

export const NEXT_STEPS: { readonly [C in ResultCode]: NextStep } = {
  VALID: 'use',
  DEVICE_REPLACED: 'use',
  TRIAL_STARTED: 'use',
  OFFLINE_ACTIVATED: 'use',
  // Valid: this release works on; only later releases need the key renewed.
  UPDATES_ENDED: 'use',
  NOT_FOUND: 'fix-request',
  KEY_REGENERATED: 'fix-request',
  REVOKED: 'buy',
  EXPIRED: 'buy',
  PRODUCT_INACTIVE: 'buy',
  TRIAL_ALREADY_USED: 'buy',
  TRIAL_NOT_OFFERED: 'buy',
  NOT_ACTIVATED: 'activate',
  LEASE_EXPIRED: 'activate',
  DEVICE_LIMIT_REACHED: 'replace-a-device',
  NO_SEAT_AVAILABLE: 'wait',
  SWAP_BUDGET_EXHAUSTED: 'wait',
  BORROW_NOT_ALLOWED: 'fix-request',
  DEACTIVATED: 'stop',
  SEAT_RELEASED: 'stop',
  CONSUMED: 'use',
  USAGE_EXHAUSTED: 'wait',
  USAGE_NOT_METERED: 'fix-request',
  INVALID_SIGNATURE: 'reject',
  UNREACHABLE: 'retry-later',
  RATE_LIMITED: 'retry-later',
  REJECTED: 'fix-request',
  NONCE_ALREADY_USED: 'fix-request',
  NOT_THIS_REQUEST: 'fix-request',
  CLOCK_BEHIND: 'fix-clock',
};

/** What to do with a result (see NextStep). */
export const nextStep = (result: { code: ResultCode }): NextStep => NEXT_STEPS[result.code];
