/**
 * Generated rebate code signs: two groups of four characters (`K7QM-3WHP`) from an
 * alphabet without the characters people confuse when reading a code aloud or off paper
 * (0/O, 1/I/L), drawn from a crypto random source. 31^8 ≈ 8.5·10^11 codes, so a clash
 * is rare; when it happens the store's unique index refuses the insert and we draw again.
 */
import { randomInt } from 'node:crypto';

export const SIGN_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const SIGN_GROUPS = 2;
export const SIGN_GROUP_LENGTH = 4;
export const SIGN_ATTEMPTS = 8;

/** `random(n)` answers an integer in [0, n); crypto's randomInt is unbiased. */
export type RandomInt = (max: number) => number;

export function generateSign(random: RandomInt = randomInt): string {
  const group = () => Array.from({ length: SIGN_GROUP_LENGTH }, () => SIGN_ALPHABET[random(SIGN_ALPHABET.length)]).join('');
  return Array.from({ length: SIGN_GROUPS }, group).join('-');
}

export class SignExhaustedError extends Error {
  constructor(attempts: number) {
    super(`No unique rebate code sign was found in ${attempts} attempts.`);
    this.name = 'SignExhaustedError';
  }
}

/**
 * Runs `attempt` with fresh signs until it succeeds. `isConflict` recognises the unique
 * index refusing the sign; any other error is passed on. The attempt should be a whole
 * transaction: PostgreSQL aborts a transaction on a failed insert, so retrying inside it
 * would not work.
 */
export async function withUniqueSign<T>(
  attempt: (sign: string) => Promise<T>,
  isConflict: (err: unknown) => boolean,
  generate: () => string = generateSign,
  attempts = SIGN_ATTEMPTS,
): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    try {
      return await attempt(generate());
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }
  throw new SignExhaustedError(attempts);
}
