import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Config } from '../config.js';
import { parseDatabaseUrl } from '../store/db.js';

/**
 * The HS256 secret: AUTH_JWT_SECRET when set; otherwise one generated once and kept
 * beside the database (mode 0600) so that `npm run token` and the server agree. An
 * in-memory store gets a secret that lives as long as the process.
 */
export function resolveJwtSecret(config: Config): string {
  if (config.AUTH_JWT_SECRET) return config.AUTH_JWT_SECRET;
  const location = parseDatabaseUrl(config.DATABASE_URL);
  if (location.kind !== 'file') return processSecret;
  const file = location.path;
  const secretFile = join(dirname(file), '.jwt-secret');
  try {
    const existing = readFileSync(secretFile, 'utf8').trim();
    if (existing.length >= 16) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dirname(secretFile), { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  try {
    writeFileSync(secretFile, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (err) {
    // Another process wrote it first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(secretFile, 'utf8').trim();
    throw err;
  }
}

const processSecret = randomBytes(32).toString('base64url');
