import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t from 'tap';
// @ts-expect-error -- a script of plain JavaScript, without declarations
import { wrongImports } from '../../scripts/check-layers.mjs';
import { operations } from '../../src/contract/operations.js';

// The layout's rules (docs/decisions.md, "Layers point down"): imports go down the layers, the core
// knows no web framework, MCP hands JSON to the executor as it is, and one index reads the
// contract's operations.

t.test('the imports of src/ go down the layers', async (t) => {
  t.strictSame(wrongImports(), []);
});

t.test('an import up a layer, across one, or of the framework from the core is named', async (t) => {
  const src = mkdtempSync(join(tmpdir(), 'layers-'));
  t.teardown(() => rmSync(src, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(src, path)), { recursive: true });
    writeFileSync(join(src, path), text);
  };
  write('contract/errors.ts', "import type { Execute } from '../executor/execute.js';\n");
  write('executor/execute.ts', "import type { FastifyRequest } from 'fastify';\nimport '../contract/errors.js';\n");
  write('http/a.ts', "export const a = () => import('../mcp/b.js');\n");
  write('mcp/b.ts', 'export const b = 1;\n');
  const wrong: string[] = wrongImports(src);
  t.equal(wrong.length, 3, wrong.join('\n'));
  t.match(wrong.join('\n'), /contract may not import executor[\s\S]*executor knows no transport[\s\S]*http may not import mcp/);
});

t.test('the MCP layer writes no query string, and the contract is walked in one place', async (t) => {
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
  for (const file of files('src/mcp')) t.notMatch(readFileSync(file, 'utf8'), /URLSearchParams/, file);
  const walkers = files('src').filter((file) => /function operations\(|document\.paths|\.paths \?\?/.test(readFileSync(file, 'utf8')));
  t.strictSame(walkers, ['src/contract/operations.ts']);
  t.ok(operations().size >= 13);
});
