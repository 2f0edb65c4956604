// The forms' checks come from the API's own zod schemas, so a form says what the API would.
import { describe, expect, it } from 'vitest';
import { registerSchema } from '../../worker/modules/accounts/schemas/auth';
import { PASSWORD_TOO_SHORT_MESSAGE, PERSONAL_PASSWORD_MESSAGE } from '../../worker/modules/accounts/schemas/password-policy';
import { validateRegistration } from '../src/features/auth/RegisterPage';
import { validateNewPassword } from '../src/features/auth/ResetPasswordPage';
import { validateExchange } from '../src/features/exchange/ExchangePage';
import { schemaErrors } from '../src/lib/form';

describe('schemaErrors', () => {
  it('gives the first message of each field, keyed by the field', () => {
    expect(schemaErrors(registerSchema, { username: 'a', email: 'nope', password: '' })).toEqual({
      username: 'Username must be at least 3 characters',
      email: 'Please enter a valid email address',
      password: 'Password is required',
    });
  });

  it('is empty when the schema accepts the values', () => {
    expect(schemaErrors(registerSchema, { username: 'ada', email: 'ada@example.com', password: 'velvet harbor lantern' })).toEqual({});
  });
});

describe('the registration form', () => {
  const good = {
    username: 'ada',
    email: 'ada@example.com',
    password: 'velvet harbor lantern',
    confirmPassword: 'velvet harbor lantern',
    ref: '',
  };

  it('accepts a complete form', () => expect(validateRegistration(good)).toEqual({}));

  it('takes a referral code from a reseller’s link, in any case, and refuses one that cannot be a code', () => {
    expect(validateRegistration({ ...good, ref: '0a1b2c3d4e' })).toEqual({});
    expect(validateRegistration({ ...good, ref: 'no!' })).toEqual({
      ref: 'This referral code is not valid: check the link, or register without it',
    });
  });

  it('asks for the confirmation, and for it to match', () => {
    expect(validateRegistration({ ...good, confirmPassword: '' })).toEqual({ confirmPassword: 'Please confirm your password' });
    expect(validateRegistration({ ...good, confirmPassword: 'other' })).toEqual({ confirmPassword: 'Passwords do not match' });
  });

  it('refuses a password made of the username, as the API does', () => {
    const mine = 'adalovelace-garden';
    expect(validateRegistration({ ...good, username: 'adalovelace', password: mine, confirmPassword: mine })).toEqual({
      password: PERSONAL_PASSWORD_MESSAGE,
    });
  });

  it('refuses a pasted session token as the email, as the API does', () => {
    expect(validateRegistration({ ...good, email: 'eyJhbGciOi.x.y' }).email).toBe(
      'Invalid email format. Please enter a valid email address.',
    );
  });
});

describe('the new-password form', () => {
  it('needs the password policy and a matching confirmation', () => {
    const strong = 'velvet harbor lantern';
    expect(validateNewPassword({ password: strong, confirm: strong })).toEqual({});
    expect(validateNewPassword({ password: 'short1', confirm: 'short1' })).toEqual({ password: PASSWORD_TOO_SHORT_MESSAGE });
    expect(validateNewPassword({ password: strong, confirm: '' })).toEqual({ confirm: 'Please confirm your new password' });
    expect(validateNewPassword({ password: strong, confirm: `${strong}!` })).toEqual({ confirm: 'Passwords do not match' });
  });
});

describe('the exchange form', () => {
  it('takes an amount in dollars and cents up to the balance', () => {
    expect(validateExchange({ usdAmount: '12.34' }, 2000)).toEqual({});
    expect(validateExchange({ usdAmount: '20' }, 2000)).toEqual({});
  });

  it('refuses what is not an amount, a third decimal, nothing, or more than the balance', () => {
    for (const usdAmount of ['', 'abc', '0', '-1', '1.005'])
      expect(validateExchange({ usdAmount }, 2000)).toEqual({ usdAmount: 'Please enter a valid USD amount' });
    expect(validateExchange({ usdAmount: '20.01' }, 2000)).toEqual({ usdAmount: 'Insufficient USD balance' });
  });
});
