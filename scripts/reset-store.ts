// What `npm run reset` does (scripts/reset.ts is the command): the store named by
// DATABASE_URL emptied and made again as `npm start` makes it, each step reported.
import { existsSync, rmSync } from 'node:fs';
import { Migrator, NO_MIGRATIONS } from 'kysely';
import { generatedSecretFile } from '../src/auth/secret.js';
import type { Config } from '../src/config.js';
import { loadDemoDataIntoEmptyStore } from '../src/import/demo-data.js';
import { openStore, parseDatabaseUrl } from '../src/store/db.js';
import { migrationProvider } from '../src/store/migrations/index.js';
import { dropBookkeeping } from '../src/store/versions.js';

/** A reset this configuration does not allow; nothing was touched. */
export class ResetRefused extends Error {}

export interface ResetOptions {
  /** the caller confirmed that the PostgreSQL database of DATABASE_URL is to be emptied */
  postgres?: boolean;
}

/**
 * Empties the store of `config.DATABASE_URL` and makes it again, migrated and (unless
 * DEMO_DATA=false) with the demo data set; resolves with what it did, a sentence a line.
 * SQLite file: deletes it (and its -wal, -shm, -journal files) and the JWT secret beside it,
 * so older tokens stop being accepted. PostgreSQL: only with `postgres: true` (it may be a
 * shared database), reverts every migration (the service's tables, nothing else), then
 * migrates again; tokens stay valid. In memory: nothing to do.
 */
export async function resetStore(config: Config, options: ResetOptions = {}): Promise<string[]> {
  const location = parseDatabaseUrl(config.DATABASE_URL);
  if (location.kind === 'memory') {
    return ['DATABASE_URL is an in-memory store (file::memory:): it starts empty at every start, so there is nothing to reset.'];
  }
  const done: string[] = [];
  if (location.kind === 'postgres') {
    if (!options.postgres) {
      throw new ResetRefused(
        `DATABASE_URL is the PostgreSQL database ${describePostgres(location.url)}; nothing was touched. ` +
          'npm run reset -- --postgres drops every table of this service there (and their rows), then migrates it again.',
      );
    }
    done.push(await revertMigrations(location.url));
  } else {
    done.push(...removeSqlite(location.path, config));
  }

  const store = await openStore(config.DATABASE_URL);
  try {
    const loaded = config.DEMO_DATA ? await loadDemoDataIntoEmptyStore(store) : undefined;
    done.push(
      loaded
        ? 'Created it again, migrated, with the demo data set.'
        : config.DEMO_DATA
          ? 'Created it again, migrated; another process loaded data into it meanwhile, so the demo data set was not added.'
          : 'Created it again, migrated and empty (DEMO_DATA=false).',
    );
  } finally {
    await store.close();
  }
  if (config.AUTH_JWT_SECRET) done.push('Tokens signed with AUTH_JWT_SECRET stay valid: a reset does not change it.');
  return done;
}

/** Deletes the SQLite database and the JWT secret generated beside it. */
function removeSqlite(path: string, config: Config): string[] {
  const files = [path, `${path}-wal`, `${path}-shm`, `${path}-journal`].filter((file) => existsSync(file));
  for (const file of files) rmSync(file);
  const done = [files.length > 0 ? `Deleted the SQLite database ${path}.` : `There was no SQLite database at ${path}.`];

  const secretFile = generatedSecretFile(path);
  const secretInUse = !config.AUTH_JWT_SECRET && !config.AUTH_JWKS_URL;
  if (existsSync(secretFile)) {
    rmSync(secretFile);
    done.push(
      secretInUse
        ? `Deleted the generated JWT secret ${secretFile}: every token minted before now is refused from here on. ` +
            'The next `npm start` or `npm run --silent token` generates a new secret; mint new tokens with the latter.'
        : `Deleted the generated JWT secret ${secretFile}, which was not in use.`,
    );
  }
  return done;
}

/** Reverts every migration, in one transaction: the service's tables are dropped. */
async function revertMigrations(url: string): Promise<string> {
  const store = await openStore(url, { migrate: false });
  try {
    const { error, results = [] } = await new Migrator({ db: store.db, provider: migrationProvider }).migrateTo(NO_MIGRATIONS);
    if (error) throw error instanceof Error ? error : new Error(String(error));
    await dropBookkeeping(store.db);
    return `Dropped the tables of this service in the PostgreSQL database ${describePostgres(url)} (${results.length} migration(s) reverted).`;
  } finally {
    await store.close();
  }
}

/** `"name" on host:port`, without the credentials of the URL. */
function describePostgres(url: string): string {
  const { hostname, port, pathname } = new URL(url);
  return `"${decodeURIComponent(pathname.slice(1))}" on ${hostname}:${port || 5432}`;
}
