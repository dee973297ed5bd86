import { randomBytes } from 'node:crypto';
import { invalid, type FieldError } from '../domain/refusals.js';

/**
 * Endpoint secrets as Standard Webhooks spells them (docs/decisions.md, "Reference values"): `whsec_` and the
 * standard base64 (with padding) of the key, 24 to 64 bytes; 32 random bytes when generated.
 * The standard's verifying libraries decode exactly this.
 */
export const SECRET_PREFIX = 'whsec_';
const SECRET_PATTERN = /^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The key bytes of a secret, or undefined when it is not a standard secret of 24 to 64 bytes. */
export function secretKey(secret: string): Buffer | undefined {
  if (!SECRET_PATTERN.test(secret)) return undefined;
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return key.length >= 24 && key.length <= 64 ? key : undefined;
}

/** A secret given for an endpoint (an import) must be one secretKey reads. */
export function checkSecret(secret: string): FieldError[] {
  return secretKey(secret)
    ? []
    : [invalid('InvalidSecret', 'Secret', (name) => `${name} must be whsec_ followed by the standard base64 of 24 to 64 bytes.`)];
}
