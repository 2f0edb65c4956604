// Every licensing outcome is a code in the API document, and the SDK handles each: its list is the
// OpenAPI document's (docs/openapi.json, generated from the Worker), and handling it is exhaustive at
// compile time (typecheck fails on the switch below, and on NEXT_STEPS, when a code is unhandled).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NEXT_STEPS, nextStep, SERVER_CODES, VALID_CODES, type ResultCode } from '../src/index';

const assertNever = (code: never): never => {
  throw new Error(`Unhandled code ${String(code)}`);
};

/** An app's exhaustive handling: a code missing here fails the typecheck at `assertNever`. */
function message(code: ResultCode): string {
  switch (code) {
    case 'VALID':
    case 'DEVICE_REPLACED':
    case 'TRIAL_STARTED':
    case 'OFFLINE_ACTIVATED':
      return 'Licensed';
    case 'UPDATES_ENDED':
      return 'Licensed (updates have ended)';
    case 'NOT_FOUND':
    case 'KEY_REGENERATED':
    case 'REJECTED':
    case 'NONCE_ALREADY_USED':
    case 'NOT_THIS_REQUEST':
      return 'Check the license key';
    case 'REVOKED':
    case 'EXPIRED':
    case 'PRODUCT_INACTIVE':
    case 'TRIAL_ALREADY_USED':
    case 'TRIAL_NOT_OFFERED':
      return 'Buy a license';
    case 'NOT_ACTIVATED':
    case 'LEASE_EXPIRED':
      return 'Activate this device';
    case 'DEVICE_LIMIT_REACHED':
      return 'Replace one of your devices';
    case 'NO_SEAT_AVAILABLE':
      return 'All seats are in use';
    case 'SWAP_BUDGET_EXHAUSTED':
      return 'No device swaps left for now';
    case 'BORROW_NOT_ALLOWED':
      return 'This license cannot be borrowed for that long';
    case 'DEACTIVATED':
    case 'SEAT_RELEASED':
      return 'Signed out of this device';
    case 'CONSUMED':
      return 'Done';
    case 'USAGE_EXHAUSTED':
      return 'No uses left for now';
    case 'USAGE_NOT_METERED':
      return 'This license has no usage to spend';
    case 'INVALID_SIGNATURE':
      return 'The answer was not genuine';
    case 'UNREACHABLE':
    case 'RATE_LIMITED':
      return 'Working offline';
    case 'CLOCK_BEHIND':
      return "Set this device's clock";
    default:
      return assertNever(code);
  }
}

/** The same check bites: with a code left out, `code` is not `never` (the directive fails if it ever compiles). */
function missingOne(code: ResultCode): string {
  if (code === 'VALID') return 'Licensed';
  // @ts-expect-error every code but VALID is unhandled here
  return assertNever(code);
}

describe('the result codes', () => {
  it("are the OpenAPI document's LicenseAnswer codes, exactly", () => {
    const doc = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../docs/openapi.json'), 'utf8')) as {
      components: { schemas: { LicenseAnswer: { properties: { code: { enum: string[]; description: string } } } } };
    };
    const code = doc.components.schemas.LicenseAnswer.properties.code;
    expect([...SERVER_CODES].sort()).toEqual([...code.enum].sort());
    // And the document says what each means.
    for (const c of SERVER_CODES) expect(code.description).toContain(`\`${c}\`: `);
  });

  it('each have a next step, and a valid one means use', () => {
    for (const c of SERVER_CODES) expect(message(c)).toBeTruthy();
    expect(Object.keys(NEXT_STEPS).sort()).toEqual(
      [...SERVER_CODES, 'INVALID_SIGNATURE', 'UNREACHABLE', 'RATE_LIMITED', 'REJECTED', 'CLOCK_BEHIND', 'NOT_THIS_REQUEST'].sort(),
    );
    for (const c of VALID_CODES) expect(nextStep({ code: c })).toBe('use');
    expect(nextStep({ code: 'DEVICE_LIMIT_REACHED' })).toBe('replace-a-device');
    expect(nextStep({ code: 'USAGE_EXHAUSTED' })).toBe('wait');
    expect(nextStep({ code: 'CLOCK_BEHIND' })).toBe('fix-clock');
    expect(() => missingOne('REVOKED')).toThrow('Unhandled code REVOKED');
  });
});
