import { createHmac } from 'node:crypto';

/**
 * The Standard Webhooks headers of one attempt: `webhook-id` (the message id, the same on
 * every retry), `webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature`
 * (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body` keyed by the secret's key bytes).
 */
export function signatureHeaders(messageId: string, at: Date, body: string, key: Buffer): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signature = createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64');
  return {
    'webhook-id': messageId,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${signature}`,
  };
}
