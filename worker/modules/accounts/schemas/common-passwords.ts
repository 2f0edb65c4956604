// The commonest passwords, the first ones an attacker tries; a new password must not be one of them.
import { COMMON_PASSWORDS_TEXT } from '../../../../generated/common-passwords';

let common: Set<string> | undefined;

/** Every listed password, most common first (the strength meter feeds them to zxcvbn-ts too). */
export const commonPasswords = () => COMMON_PASSWORDS_TEXT.split('\n');

/** Case-insensitive, as people vary case least of all. The set is built on the first check. */
export function isCommonPassword(password: string): boolean {
  common ??= new Set(commonPasswords());
  return common.has(password.trim().toLowerCase());
}
