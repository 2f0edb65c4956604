// The sign-in and registration rules that need no zod: the bounds, the messages and
// the sign-in form's own checks. The sign-in page, the first screen most people load, imports only
// this, so it stays small; auth.ts builds the API's zod schemas from the same values.
export const USERNAME_MIN = 3;
export const USERNAME_MAX = 30;
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 128;

export const EMAIL_REQUIRED_MESSAGE = 'Email is required';
export const PASSWORD_REQUIRED_MESSAGE = 'Password is required';

// A pasted session token (a JWT starts with eyJ) is not an email address.
export const looksLikeToken = (value: string) => value.startsWith('eyJ') && value.includes('.');
export const TOKEN_AS_EMAIL_MESSAGE = 'Invalid email format. Please enter a valid email address.';

/** The sign-in form's checks before it calls the API, which applies `loginSchema` to the same rules. */
export function signInFormErrors(input: { email: string; password: string }): { email?: string; password?: string } {
  const errors: { email?: string; password?: string } = {};
  const email = input.email.trim();
  if (!email) errors.email = EMAIL_REQUIRED_MESSAGE;
  else if (looksLikeToken(email)) errors.email = TOKEN_AS_EMAIL_MESSAGE;
  if (!input.password) errors.password = PASSWORD_REQUIRED_MESSAGE;
  return errors;
}
