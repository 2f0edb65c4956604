// The CLI's outcomes (docs/cli.md, "Exit codes and errors"): 0 success, 1 an error from the API or the network,
// 2 bad usage. Every failure is one of these classes, so the entry point maps it to its code.
export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;

/** Bad usage: a missing or invalid argument, caught before any request is sent. */
export class UsageError extends Error {
  readonly exitCode = EXIT_USAGE;
}

/** Anything that went wrong talking to KeyPanel; `hint` is printed on its own line after the message. */
export class CliError extends Error {
  readonly exitCode = EXIT_ERROR;
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** The API answered with an error: its own message, status and code. */
export class ApiError extends CliError {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
    hint?: string,
    /** The answer's details (a refused import's problems, say). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message, hint);
  }
}

export const LOGIN_HINT = 'Run `keypanel login` to sign in.';
