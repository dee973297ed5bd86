import { resolve } from 'node:path';

/**
 * The SQLite file a DATABASE_URL names: `file:./data/x.sqlite` or `file:/abs/x.sqlite`;
 * undefined for the in-memory store (`file::memory:`) and for non-file URLs.
 */
export function databaseFile(databaseUrl: string): string | undefined {
  if (!databaseUrl.startsWith('file:')) return undefined;
  const path = databaseUrl.slice('file:'.length).replace(/^\/\/(?=\/)/, '');
  if (path === ':memory:' || path === '') return undefined;
  return resolve(path);
}
