// Questions for a person at a terminal, or answers piped in by a script: on a terminal the prompt
// goes to stderr and a secret is read without echo; otherwise each answer is the next line of stdin.
import { createInterface, type Interface } from 'node:readline';
import { ApiError, UsageError } from './errors';

const stdinIsTerminal = () => process.stdin.isTTY === true;

// ---- piped input: one line per answer ----------------------------------------------------------

let piped: { lines: string[]; waiting: Array<(line: string | null) => void>; ended: boolean; reader: Interface } | null = null;

function pipedLine(): Promise<string | null> {
  if (!piped) {
    const state = {
      lines: [] as string[],
      waiting: [] as Array<(line: string | null) => void>,
      ended: false,
      reader: createInterface({ input: process.stdin, terminal: false }),
    };
    state.reader.on('line', (line) => {
      const next = state.waiting.shift();
      if (next) next(line);
      else state.lines.push(line);
    });
    state.reader.on('close', () => {
      state.ended = true;
      for (const next of state.waiting.splice(0)) next(null);
    });
    piped = state;
  }
  const state = piped;
  if (state.lines.length) return Promise.resolve(state.lines.shift()!);
  if (state.ended) return Promise.resolve(null);
  return new Promise((resolve) => state.waiting.push(resolve));
}

/** Lets the process exit once the answers are read (an open stdin would keep it alive). */
export function closeInput() {
  piped?.reader.close();
  if (stdinIsTerminal()) process.stdin.pause();
}

async function answerFromPipe(what: string): Promise<string> {
  const line = await pipedLine();
  if (line === null)
    throw new UsageError(`Expected ${what} on standard input, but it ended. Run this in a terminal, or pipe the answer in.`);
  return line.replace(/\r$/, '');
}

// ---- a terminal ---------------------------------------------------------------------------------

/** A visible answer (an email, a two-factor code). */
export async function ask(question: string, what: string): Promise<string> {
  if (!stdinIsTerminal()) return answerFromPipe(what);
  const reader = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return await new Promise<string>((resolve) => reader.question(question, resolve));
  } finally {
    reader.close();
  }
}

/** A secret: typed without echo in raw mode; Ctrl+C cancels (exit 130, as a shell does). */
export async function askSecret(question: string, what: string): Promise<string> {
  if (!stdinIsTerminal()) return answerFromPipe(what);
  const stdin = process.stdin;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  try {
    return await new Promise<string>((resolve) => {
      let secret = '';
      const onData = (chunk: string) => {
        for (const char of chunk) {
          if (char === '\r' || char === '\n' || char === '\u0004') {
            stdin.off('data', onData);
            process.stderr.write('\n');
            return resolve(secret);
          }
          if (char === '\u0003') {
            process.stderr.write('\n');
            stdin.setRawMode(false);
            process.exit(130);
          }
          if (char === '\u007f' || char === '\b') secret = secret.slice(0, -1);
          else if (char >= ' ') secret += char;
        }
      };
      stdin.on('data', onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
  }
}

// ---- step-up ------------------------------------------------------------------------------------

/**
 * Proof for a sensitive action the server asked to confirm (403 REAUTH_REQUIRED): KEYPANEL_PASSWORD
 * in scripts, else the password asked without echo, or (Enter on an empty password) a two-factor code.
 */
export async function askStepUp(): Promise<{ currentPassword: string } | { code: string }> {
  const fromEnv = process.env.KEYPANEL_PASSWORD;
  if (fromEnv) return { currentPassword: fromEnv };
  const password = await askSecret('Confirm with your password (or press Enter to use a two-factor code): ', 'the current password');
  if (password) return { currentPassword: password };
  const code = (await ask('Two-factor code: ', 'a two-factor code')).trim();
  if (!code) throw new UsageError('Confirm with your password or a two-factor code (scripts can set KEYPANEL_PASSWORD)');
  return { code };
}

/**
 * Runs a sensitive call, confirming it is you when the server asks (403 REAUTH_REQUIRED): with
 * KEYPANEL_PASSWORD up front when set, else asked for after the first refusal (an account without
 * a password that signed in moments ago needs no proof). Making an API token, a reseller or an
 * owner, or a webhook endpoint all ask for it.
 */
export async function withStepUp<T>(call: (proof: object) => Promise<T>): Promise<T> {
  if (process.env.KEYPANEL_PASSWORD) return call(await askStepUp());
  try {
    return await call({});
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 'REAUTH_REQUIRED')) throw err;
    const proof = await askStepUp();
    closeInput();
    return call(proof);
  }
}
