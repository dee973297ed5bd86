import { existsSync } from 'node:fs';
import t from 'tap';
import { requestFiles } from '../../scripts/request-files.js';

// scripts/request-files.ts counts the src files one warm request runs. Only what survives
// a restructuring of src/ is asserted here: the count itself is the script's report.
const root = new URL('../../', import.meta.url);

t.test('one warm CreateRebateCodeTransaction runs src files, an operation among them', async (t) => {
  const files = await requestFiles();
  t.ok(files.length > 0, 'some src files ran');
  for (const { file, lines } of files) {
    t.match(file, /^src\/.+\.ts$/, `${file} is under src/`);
    t.ok(existsSync(new URL(file, root)), `${file} exists`);
    t.ok(lines > 0, `${file} has lines`);
  }
  t.ok(files.some(({ file }) => file.startsWith('src/operations/')), 'an operation file ran');
});
