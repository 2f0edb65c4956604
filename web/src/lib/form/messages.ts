// The validation messages the API's schemas give (worker/modules/*/schemas, shared with the forms
// and the CLI, in English) in the language in force, mapped when a form shows them: a message is
// known by its English text in the core catalog (with the rule's numbers filled in), so this module
// brings no zod into a page; a message not listed here shows as the API wrote it.
import { PASSWORD_MAX, PASSWORD_MIN, USERNAME_MAX, USERNAME_MIN } from '../../../../worker/modules/accounts/schemas/auth-rules';
import { englishMessages, type MessageId } from '../i18n/catalogs';
import { translate } from '../i18n/runtime';

/** Each message the forms may show, with the numbers its rule writes into it. */
const KNOWN: Array<[MessageId, Record<string, number>?]> = [
  ['validation.emailRequired'],
  ['validation.emailInvalid'],
  ['validation.emailTooLong'],
  ['validation.tokenAsEmail'],
  ['validation.passwordRequired'],
  ['validation.passwordTooShort', { min: PASSWORD_MIN }],
  ['validation.passwordTooLong', { max: PASSWORD_MAX }],
  ['validation.passwordCommon'],
  ['validation.passwordPersonal'],
  ['validation.passwordsMismatch'],
  ['validation.usernameRequired'],
  ['validation.usernameTooShort', { min: USERNAME_MIN }],
  ['validation.usernameTooLong', { max: USERNAME_MAX }],
  ['validation.usernameCharacters'],
  ['validation.referralInvalid'],
  ['validation.regenerateReason'],
  ['validation.transferRecipient'],
  ['validation.notEmailOrUsername'],
  ['validation.nameRequired'],
  ['validation.namePrintable'],
];

const fill = (text: string, values: Record<string, number> = {}) =>
  text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));

let byEnglish: Map<string, [MessageId, Record<string, number>?]> | undefined;

/** A validation message in the language in force (as it is, when it is not one of the known rules). */
export function validationMessage(message: string): string;
export function validationMessage(message: string | undefined): string | undefined;
export function validationMessage(message: string | null | undefined): string | null | undefined;
export function validationMessage(message: string | null | undefined) {
  if (!message) return message;
  byEnglish ??= new Map(KNOWN.map((entry) => [fill((englishMessages as Record<string, string>)[entry[0]] ?? '', entry[1]), entry]));
  const known = byEnglish.get(message);
  return known ? translate(known[0], known[1]) : message;
}
