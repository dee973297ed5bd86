// `npm run import -- <file.json>`: loads a data file (docs/importing.md) into the store
// named by DATABASE_URL. All or nothing: any bad record is reported on stderr, naming its
// collection, index and field, and nothing is written.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../src/config.js';
import { formatIssue, ImportError, importData } from '../src/import/import.js';
import { openStore } from '../src/store/db.js';

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const args = process.argv.slice(2);
if (args.length !== 1 || args[0].startsWith('-')) fail('usage: npm run import -- <file.json>');
// npm runs scripts from the package root; a relative path means the caller's directory.
const file = resolve(process.env.INIT_CWD ?? process.cwd(), args[0]);

let text: string;
try {
  text = await readFile(file, 'utf8');
} catch (err) {
  fail(`cannot read ${file}: ${(err as Error).message}`);
}
let data: unknown;
try {
  data = JSON.parse(text);
} catch (err) {
  fail(`${file} is not valid JSON: ${(err as Error).message}`);
}

try {
  const config = loadConfig();
  const store = await openStore(config.DATABASE_URL);
  try {
    const summary = await importData(store, data);
    const parts = Object.entries(summary).filter(([, count]) => count > 0).map(([name, count]) => `${count} ${name}`);
    const total = Object.values(summary).reduce((sum, count) => sum + count, 0);
    console.log(`Imported ${total} item(s) into ${config.DATABASE_URL}${parts.length ? `: ${parts.join(', ')}` : ''}.`);
  } finally {
    await store.close();
  }
} catch (err) {
  if (err instanceof ImportError) {
    console.error(`${file}: ${err.errors.length} error(s); nothing was imported.`);
    for (const issue of err.errors) console.error(`  ${formatIssue(issue)}`);
    process.exit(1);
  }
  if (err instanceof ConfigError) fail(err.message);
  fail(`import failed: ${err instanceof Error ? err.message : String(err)}`);
}
