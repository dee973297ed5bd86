import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { openStore } from '../../src/store/db.js';
import { demoData } from '../../src/store/demo-data.js';
import { freshDatabase } from '../test-store.js';
import { rowCounts } from '../store/store-helper.js';

// docs/importing.md: `npm run import -- <file.json>`, all or nothing, into the store
// DATABASE_URL names: an SQLite file, or a fresh PostgreSQL database (../test-store.ts).

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

async function importCli(file: string, databaseUrl: string) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/run-ts.mjs', 'scripts/import.ts', file], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl, INIT_CWD: root },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The DATABASE_URL of an empty database of the engine under test, removed when the test ends. */
async function database(t: Test, dir: string): Promise<string> {
  const fresh = await freshDatabase(`file:${join(dir, 'x.sqlite')}`);
  t.teardown(fresh.drop);
  return fresh.url;
}

async function counts(databaseUrl: string) {
  const store = await openStore(databaseUrl);
  try {
    return await rowCounts(store);
  } finally {
    await store.close();
  }
}

t.test('a good file is imported: exit 0 and a one-line summary', async (t) => {
  const dir = t.testdir({ 'demo.json': JSON.stringify(demoData) });
  const url = await database(t, dir);
  const res = await importCli(join(dir, 'demo.json'), url);
  t.equal(res.code, 0, res.stderr);
  t.match(res.stdout, /^Imported \d+ item\(s\) into .*2 Companies.*\.\n$/);
  t.equal((await counts(url)).companies, 2);
});

t.test('a bad file: exit 1, each error on stderr, nothing written', async (t) => {
  const bad = structuredClone(demoData) as any;
  bad.RebateCodes[3].ValidTo = 'soon';
  bad.Services[0].Name = 42;
  const dir = t.testdir({ 'bad.json': JSON.stringify(bad) });
  const url = await database(t, dir);
  const res = await importCli(join(dir, 'bad.json'), url);
  t.equal(res.code, 1);
  t.match(res.stderr, /Services\[0\]\.Name: 'Name' must be a string\./);
  t.match(res.stderr, /RebateCodes\[3\]\.ValidTo: 'Valid To' is not a valid date-time\./);
  t.equal(res.stdout, '');
  const after = await counts(url);
  t.ok(Object.values(after).every((n) => n === 0), 'every table empty');
});

t.test('a missing file or a file that is not JSON: exit 1 with a clear message', async (t) => {
  const dir = t.testdir({ 'broken.json': '{"Companies": [' });
  const url = await database(t, dir);
  const missing = await importCli(join(dir, 'nope.json'), url);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /cannot read .*nope\.json/);
  const broken = await importCli(join(dir, 'broken.json'), url);
  t.equal(broken.code, 1);
  t.match(broken.stderr, /broken\.json is not valid JSON/);
});
