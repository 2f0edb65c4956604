// Unsafe text: the one rule for characters that must not reach a screen, a terminal or a file as
// they are. Control characters (C0, DEL, C1: ESC starts a terminal escape, OSC 8 a hidden link, BEL
// rings, NUL cuts strings short, CR overwrites a line) and the Unicode characters that reorder text
// (bidirectional embeddings, overrides, isolates and marks: U+202E shows `exe.txt` for `txt.exe`),
// with the Unicode line and paragraph separators. Text people type (names, descriptions, reasons)
// refuses them with a 400 (`refuseUnsafeText`); text that licensed software sends (deviceInfo) is
// cleaned of them at the edge (`cleanUnsafeText`: an app cannot retype what its platform reports),
// and what is shown is shown through `visibleText`, as the web app and the CLI do with what they print.
import type { z } from 'zod';

const BIDI_AND_SEPARATORS = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069\\u2028\\u2029';
/** Every control character, and the reordering characters. */
const UNSAFE_CLASS = `[\\u0000-\\u001f\\u007f-\\u009f${BIDI_AND_SEPARATORS}]`;
const UNSAFE = new RegExp(UNSAFE_CLASS, 'u');
const EVERY_UNSAFE = new RegExp(UNSAFE_CLASS, 'gu');
/** The same, but a line break (LF, or CR LF) is allowed: for text typed in a multi-line box. */
const UNSAFE_BESIDES_LINE_BREAKS = new RegExp(`[\\u0000-\\u0009\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f${BIDI_AND_SEPARATORS}]`, 'u');

export type TextOptions = { lineBreaks?: boolean };

/** How a character reads when escaped: `\x1b`, `\u202e`. */
export const escapedCharacter = (ch: string) => {
  const code = ch.codePointAt(0) ?? 0;
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** The first character the rule refuses, or null. A lone CR (not before LF) is refused even with line breaks. */
export function unsafeCharacter(text: string, options: TextOptions = {}): string | null {
  if (!options.lineBreaks) return UNSAFE.exec(text)?.[0] ?? null;
  const found = UNSAFE_BESIDES_LINE_BREAKS.exec(text)?.[0];
  if (found) return found;
  return /\r(?!\n)/.test(text) ? '\r' : null;
}

export const unsafeTextMessage = (name: string, ch: string) =>
  `${name} must not contain control characters or bidirectional text controls (found ${escapedCharacter(ch)})`;

/** The zod refinement for typed text: `z.string().superRefine(refuseUnsafeText('Name'))`. */
export const refuseUnsafeText =
  (name: string, options: TextOptions = {}) =>
  (value: string, ctx: z.RefinementCtx) => {
    const ch = unsafeCharacter(value, options);
    if (ch !== null) ctx.addIssue({ code: 'custom', message: unsafeTextMessage(name, ch) });
  };

/** Text shown safely: every unsafe character written visibly as its escape (`\x1b`, `\u202e`); line breaks kept when asked. */
export function visibleText(text: string, options: TextOptions = {}): string {
  return text.replace(EVERY_UNSAFE, (ch) => (options.lineBreaks && ch === '\n' ? ch : escapedCharacter(ch)));
}

/** Text with every unsafe character taken out: for text a program sends (deviceInfo), which it cannot retype. */
export const cleanUnsafeText = (text: string): string => text.replace(EVERY_UNSAFE, '');
