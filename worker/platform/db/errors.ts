// D1 reports a failed constraint only in its message, and drizzle wraps that error in its own:
// read the whole chain, so a guard written as a constraint can be told apart from a real failure.
export function dbErrorText(err: unknown): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current && depth < 5; depth++) {
    parts.push(String((current as Error).message ?? current));
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join(' | ');
}

/** True when the error is SQLite naming this constraint (`users_credits_check`, `ledger.user_id`, ...). */
export function failedConstraint(err: unknown, kind: 'CHECK' | 'NOT NULL' | 'UNIQUE', name: string): boolean {
  const text = dbErrorText(err);
  return text.includes(`${kind} constraint failed`) && text.includes(name);
}
