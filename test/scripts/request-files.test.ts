import { existsSync } from 'node:fs';
import t from 'tap';
import { MAX_LINES, requestFiles } from '../../scripts/request-files.js';

// scripts/request-files.ts counts the src files one warm request runs: a write's synchronous
// path stays within 15 files of at most 250 lines each, so that a reader can follow it
// (docs/decisions.md, "One way to run an operation").
const root = new URL('../../', import.meta.url);

t.test('one warm CreateRebateCodeTransaction runs at most 15 src files, none over 250 lines', async (t) => {
  const files = await requestFiles();
  for (const { file, lines } of files) {
    t.match(file, /^src\/.+\.ts$/, `${file} is under src/`);
    t.ok(existsSync(new URL(file, root)), `${file} exists`);
    t.ok(lines > 0 && lines <= MAX_LINES, `${file} has ${lines} lines`);
  }
  t.ok(files.some(({ file }) => file === 'src/executor/execute.ts'), 'the executor ran');
  t.ok(files.some(({ file }) => file.startsWith('src/handlers/')), 'a handler file ran');
  t.ok(files.length <= 15, `${files.length} files: ${files.map((f) => f.file).join(', ')}`);
});
