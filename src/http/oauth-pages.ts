/**
 * The sign-in and consent pages of the authorization server: small, server-rendered, and
 * working without JavaScript. Every value shown is escaped; nothing is loaded from elsewhere
 * (no logo of a client), and each page's policy admits its form's posts alone, and the
 * client's redirect after the consent form (a browser applies `form-action` to it).
 */

const escape = (text: unknown) =>
  String(text ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem}' +
  'textarea{width:100%;font:13px monospace}button{font-size:1rem;padding:.4rem 1rem;margin-right:.5rem}' +
  '.note{color:#555;font-size:.9rem}.refusal{color:#a00}';

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${escape(title)}</title><style>${STYLE}</style></head><body><h1>${escape(title)}</h1>${body}</body></html>`;
}

/** The headers of every page: no cache, no referrer, no frame, and a policy whose form-action admits `formOrigins`. */
export function pageHeaders(formOrigins: string[]): Record<string, string> {
  const csp = ["default-src 'none'", "style-src 'unsafe-inline'", `form-action 'self' ${formOrigins.join(' ')}`.trim(), "frame-ancestors 'none'", "base-uri 'none'"];
  return {
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'content-security-policy': csp.join('; '),
    'x-frame-options': 'DENY',
    'content-type': 'text/html; charset=utf-8',
  };
}

export interface SignInPage {
  action: string;
  nonce: string;
  client: string;
  refusal?: string;
}

export function signInPage({ action, nonce, client, refusal }: SignInPage): string {
  return page(
    'Sign in to the Booking Administration API',
    `<p>${escape(client)} asks to use the booking API for you.</p>` +
      (refusal ? `<p class="refusal" role="alert">${escape(refusal)}</p>` : '') +
      `<form method="post" action="${escape(action)}"><input type="hidden" name="nonce" value="${escape(nonce)}">` +
      `<p><label for="token">Sign-in token</label><br><textarea id="token" name="token" rows="6" required autofocus></textarea></p>` +
      '<p class="note">Make one with <code>npm run token -- --company &lt;guid&gt; --role &lt;role&gt; --sign-in</code>: ' +
      'it works once, for 10 minutes.</p><button type="submit">Sign in</button></form>',
  );
}

export interface ConsentPage {
  action: string;
  nonce: string;
  /** where the client came from: a metadata document's host, or a registered client's redirect host */
  origin: string;
  /** a registered client's own name, which nobody verified */
  name?: string;
  company: string;
  person: string;
  scopes: string[];
}

const SCOPE_TEXT: Record<string, string> = {
  'booking.read': 'read the company’s booking data',
  'booking.write': 'change the company’s booking data',
};

export function consentPage(p: ConsentPage): string {
  const who = p.name
    ? `<strong>${escape(p.origin)}</strong> <span class="note">(calls itself “${escape(p.name)}”, which is not verified)</span>`
    : `<strong>${escape(p.origin)}</strong>`;
  return page(
    'Allow access?',
    `<p>${who} asks to act as <strong>${escape(p.person)}</strong> for company <code>${escape(p.company)}</code>, to:</p>` +
      `<ul>${p.scopes.map((scope) => `<li>${escape(SCOPE_TEXT[scope] ?? scope)} (<code>${escape(scope)}</code>)</li>`).join('')}</ul>` +
      `<form method="post" action="${escape(p.action)}"><input type="hidden" name="nonce" value="${escape(p.nonce)}">` +
      '<button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button></form>' +
      '<p class="note">A company administrator can see and revoke this access later (McpGrantQuery, DeleteMcpGrant).</p>',
  );
}

export function refusalPage(message: string): string {
  return page('Sign-in stopped', `<p class="refusal" role="alert">${escape(message)}</p>`);
}
