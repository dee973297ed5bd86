/**
 * Generated rebate code signs: two groups of four characters (`K7QM-3WHP`) from an
 * alphabet without the characters people confuse when reading a code aloud or off paper
 * (0/O, 1/I/L), drawn from a crypto random source. 31^8 ≈ 8.5·10^11 codes, so a clash
 * is rare; when it happens the insert skips the sign the company has already, and another
 * is drawn.
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

/** Draws a sign: generateSign, or one a test gives the app to force a clash (AppOptions). */
export type SignGenerator = () => string;

/**
 * Runs `attempt` with fresh signs until it stores one. The attempt answers undefined when
 * the sign is taken: the insert skips it without failing, so the attempts run one after
 * another inside the caller's transaction (on PostgreSQL a failed insert would abort it).
 * After `attempts` taken signs, SignExhaustedError.
 */
export async function withUniqueSign<T>(
  attempt: (sign: string) => Promise<T | undefined>,
  generate: SignGenerator = generateSign,
  attempts = SIGN_ATTEMPTS,
): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const stored = await attempt(generate());
    if (stored !== undefined) return stored;
  }
  throw new SignExhaustedError(attempts);
}
