import type { IncomingMessage } from 'node:http';
import { seal, unseal } from '../auth/oauth-keys.js';
import type { oauthAdapter } from '../store/repositories/oauth.js';

/**
 * A refresh sent again soon gets the same answer (docs/decisions.md, "Assistants sign in with
 * OAuth"): a client whose answer was lost retries with the token it still holds, which
 * rotation has consumed, and oidc-provider would revoke the grant for it. So each refresh's
 * answer is kept, sealed under OAUTH_SECRET, for REPEAT_SECONDS under the token it consumed
 * (the store keeps the token's SHA-256 alone), and any node answers the retry with it; later,
 * the token sent again revokes its grant as oidc-provider does.
 */
export const REPEAT_SECONDS = 10;
const MODEL = 'RefreshAnswer';
const LABEL = 'refresh answer';

type Adapter = ReturnType<typeof oauthAdapter>;

export function refreshAnswers(Adapter: Adapter, secret: string) {
  const answers = new Adapter(MODEL);
  return {
    async remember(refreshToken: string, clientId: string, answer: unknown): Promise<void> {
      await answers.upsert(refreshToken, { clientId, sealed: await seal(secret, LABEL, JSON.stringify(answer)) }, REPEAT_SECONDS);
    },
    /** The answer the same refresh got, while it is kept and the same client asks. */
    async again(refreshToken: string, clientId: string | null): Promise<unknown> {
      const kept = await answers.find(refreshToken);
      if (!kept || kept.clientId !== clientId || typeof kept.sealed !== 'string') return undefined;
      const text = await unseal(secret, LABEL, kept.sealed);
      return text === undefined ? undefined : JSON.parse(text);
    },
  };
}

/**
 * The body of a request, read and put back for its next reader; undefined when its length is
 * not declared or is over `limit` (such a request goes on as it is).
 */
export async function peekBody(request: IncomingMessage, limit = 16_384): Promise<Buffer | undefined> {
  const length = Number(request.headers['content-length']);
  if (!Number.isInteger(length) || length <= 0 || length > limit) return undefined;
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of request.iterator({ destroyOnReturn: false })) {
    chunks.push(chunk as Buffer);
    received += (chunk as Buffer).length;
    if (received >= length) break;
  }
  const body = Buffer.concat(chunks);
  request.unshift(body);
  return body;
}
