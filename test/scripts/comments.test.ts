import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';

// Comments in src say why, in a few lines; figures, history and the long reasoning belong in
// docs/ and bench/results.md. No comment block is longer than MAX_LINES.

const MAX_LINES = 10;
const root = join(import.meta.dirname, '..', '..');
const COMMENT_LINE = /^\s*(\/\/|\/\*|\*)/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

t.test(`no comment block in src is longer than ${MAX_LINES} lines`, async (t) => {
  const long: string[] = [];
  const files = sources(join(root, 'src'));
  for (const file of files) {
    let run = 0;
    readFileSync(file, 'utf8').split('\n').forEach((line, index) => {
      run = COMMENT_LINE.test(line) ? run + 1 : 0;
      if (run === MAX_LINES + 1) long.push(`${relative(root, file)}:${index + 1 - MAX_LINES}`);
    });
  }
  t.ok(files.length > 50, `${files.length} files read`);
  t.strictSame(long, [], 'blocks that start at these lines are longer');
});
