// `npm run --silent token -- --company <guid> --role <role> [--role <role>…] [--sub <id>] [--expires-in 1h] [--sign-in]`
// Prints one bearer token, signed for the configured server, and nothing else on stdout (with
// --sign-in, a sign-in token to paste into the page where an assistant signs in: it lasts 10
// minutes and works once; src/auth/sign-in.ts):
// with AUTH_JWT_SECRET when set (required on PostgreSQL), else the secret kept beside the
// SQLite database (src/auth/secret.ts). `--silent` keeps npm's own "> script" banner off
// stdout, so that `T=$(npm run --silent token -- …)` holds the token alone.
import { parseArgs } from 'node:util';
import { resolveJwtSecret } from '../src/auth/secret.js';
import { mintSignInToken } from '../src/auth/sign-in.js';
import { mintToken } from '../src/auth/token.js';
import { ConfigError, loadConfig } from '../src/config.js';

const guid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const usage = 'usage: npm run --silent token -- --company <guid> --role <role> [--role <role>…] [--sub <id>] [--expires-in 1h] [--sign-in]';

function fail(message: string): never {
  console.error(message);
  console.error(usage);
  process.exit(1);
}

/**
 * npm prints its banner on stdout before the token unless silenced; npm marks the scripts it
 * runs with npm_lifecycle_event and exports npm_config_loglevel=silent when they are. When
 * stdout is captured (not a terminal, where the banner does no harm), say how to get the
 * token alone rather than leave a caller with a four-line "token".
 */
function noteNpmBanner(): void {
  const { npm_lifecycle_event: event, npm_config_loglevel: loglevel } = process.env;
  if (event === 'token' && loglevel !== 'silent' && !process.stdout.isTTY) {
    console.error('npm printed its own "> … token" banner on stdout before the token: `npm run --silent token -- …` prints the token alone.');
  }
}

try {
  const { values } = parseArgs({
    options: {
      company: { type: 'string' },
      role: { type: 'string', multiple: true },
      sub: { type: 'string' },
      'expires-in': { type: 'string' },
      'sign-in': { type: 'boolean' },
    },
    strict: true,
  });
  if (!values.company || !guid.test(values.company)) fail('--company must be a guid');
  const expiresIn = values['expires-in'] ?? '1h';
  if (!/^\d+\s*(s|sec|secs|m|min|mins|h|hr|hrs|d|day|days|w|week|weeks|y|year|years)$/i.test(expiresIn)) {
    fail('--expires-in must be a duration such as 30m, 1h or 7d');
  }
  const config = loadConfig();
  if (config.AUTH_JWKS_URL) fail('The server verifies identity-provider tokens (AUTH_JWKS_URL); get a token from the provider.');
  if (values['sign-in'] && values['expires-in']) fail('--sign-in makes a token that lasts 10 minutes: leave out --expires-in');
  const mint = values['sign-in'] ? mintSignInToken : mintToken;
  const token = await mint(resolveJwtSecret(config), {
    companyId: values.company.toLowerCase(),
    roles: values.role ?? [],
    sub: values.sub,
    expiresIn,
    companyClaim: config.AUTH_COMPANY_CLAIM,
    rolesClaim: config.AUTH_ROLES_CLAIM,
  });
  noteNpmBanner();
  process.stdout.write(`${token}\n`);
} catch (err) {
  // A configuration the server would refuse (e.g. no AUTH_JWT_SECRET on PostgreSQL) is not a usage error.
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  if ((err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) fail((err as Error).message);
  throw err;
}
