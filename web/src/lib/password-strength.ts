// zxcvbn-ts, loaded only when someone types a new password (see PasswordStrength): it guesses how
// many tries a password would take, from the same common-password list the server refuses, plus
// keyboard patterns, sequences, dates and the account's own name.
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs } from '@zxcvbn-ts/language-common';
import { commonPasswords } from '../../../worker/modules/accounts/schemas/common-passwords';

const zxcvbn = new ZxcvbnFactory({ dictionary: { common: commonPasswords() }, graphs: adjacencyGraphs });

/** 0 (guessed at once) to 4 (very hard to guess). */
export const strengthScore = (password: string, userInputs: string[]) => zxcvbn.check(password, userInputs.filter(Boolean)).score;
