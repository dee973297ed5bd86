import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError, type Config } from '../config.js';
import { parseDatabaseUrl } from '../store/db.js';

/**
 * A secret generated here would be known to this process (and, on SQLite, to whoever reads
 * the file beside the database) only: nodes serving one PostgreSQL database from several
 * machines could not verify each other's tokens, and `npm run token` could not sign for them.
 */
const missingSecret = () =>
  new ConfigError(
    'Invalid configuration: AUTH_JWT_SECRET (at least 16 characters) or AUTH_JWKS_URL is required when ' +
      'DATABASE_URL is PostgreSQL. Set AUTH_JWT_SECRET to the same value on every node and for `npm run token`, ' +
      'or AUTH_JWKS_URL to verify an identity provider\'s tokens.',
  );

/** Throws ConfigError when the configuration gives no way to verify tokens that every node shares. */
export function requireVerificationKey(config: Config): void {
  if (config.AUTH_JWT_SECRET || config.AUTH_JWKS_URL) return;
  if (parseDatabaseUrl(config.DATABASE_URL).kind === 'postgres') throw missingSecret();
}

/**
 * The HS256 secret: AUTH_JWT_SECRET when set. Otherwise, on SQLite, one generated once and
 * kept beside the database (mode 0600) so that `npm run token` and the server agree; an
 * in-memory store gets a secret that lives as long as the process. On PostgreSQL it must
 * be set (see missingSecret).
 */
export function resolveJwtSecret(config: Config): string {
  if (config.AUTH_JWT_SECRET) return config.AUTH_JWT_SECRET;
  const location = parseDatabaseUrl(config.DATABASE_URL);
  if (location.kind === 'postgres') throw missingSecret();
  if (location.kind === 'memory') return processSecret;
  return secretBeside(generatedSecretFile(location.path));
}

/**
 * A secret kept in `file` (mode 0600), made there on first use: 32 random bytes. Of two
 * processes that make it at once, the first write stays and both use it.
 */
export function secretBeside(file: string): string {
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= 16) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (err) {
    // Another process wrote it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw err;
  }
}

/** Where the secret generated for an SQLite database file is kept: beside it (npm run reset removes it). */
export function generatedSecretFile(databasePath: string): string {
  return join(dirname(databasePath), '.jwt-secret');
}

const processSecret = randomBytes(32).toString('base64url');
