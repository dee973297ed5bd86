// `npm run lint:layers`: the imports of src/ go one way, down the layers docs/architecture.md
// draws: a file imports from its own folder or from a lower layer, never from a higher one
// and never from another folder of its own layer. Type-only imports and `import()` count, as
// they tie the files as much as any other. Circles between files are madge's to find
// (`madge --circular`, the other half of the rule).
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** Top to bottom; each entry a layer, each name a folder of src/ (or a file of its top level, without `.ts`). src/generated is the generators' and beneath them all. */
export const LAYERS = [
  ['server'],
  ['app', 'log-output'],
  ['plugins'],
  ['http', 'mcp'],
  ['executor'],
  ['handlers', 'import'],
  ['auth', 'webhooks', 'metrics'],
  ['store'],
  ['tracing'],
  ['contract', 'config'],
  ['domain', 'generated'],
];

const SRC = resolve(import.meta.dirname, '../src');
/** The layers that know no transport: no file of theirs imports the web framework. */
const NO_FRAMEWORK = new Set(['executor', 'handlers', 'contract', 'domain']);
const layerOf = new Map(LAYERS.flatMap((names, layer) => names.map((name) => [name, layer])));

/** The room of a file of src/: its top folder, or its own name at the top level. */
const roomOf = (src, file) => {
  const [first, ...rest] = relative(src, file).split('/');
  return rest.length === 0 ? first.replace(/\.ts$/, '') : first;
};

function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

/** Every import of src/ that goes up a layer or across one, as `file -> imported`. */
export function wrongImports(src = SRC) {
  const wrong = [];
  for (const file of sources(src)) {
    const from = roomOf(src, file);
    // What the generators write imports what they are told to (src/generated/db.ts, the store's column types).
    if (from === 'generated') continue;
    if (!layerOf.has(from)) wrong.push(`${relative(src, file)}: the folder ${from} is in no layer`);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (NO_FRAMEWORK.has(from) && /^(fastify|@fastify\/)/.test(fileName)) wrong.push(`${relative(src, file)} -> ${fileName} (${from} knows no transport)`);
      if (!fileName.startsWith('.')) continue;
      const target = resolve(dirname(file), fileName).replace(/\.js$/, '.ts');
      const to = roomOf(src, target);
      if (to === from) continue;
      if (!(layerOf.get(to) > layerOf.get(from))) wrong.push(`${relative(src, file)} -> ${relative(src, target)} (${from} may not import ${to})`);
    }
  }
  return wrong;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const wrong = wrongImports();
  for (const line of wrong) console.error(line);
  if (wrong.length > 0) {
    console.error(`${wrong.length} imports go against the layers (scripts/check-layers.mjs, docs/architecture.md).`);
    process.exit(1);
  }
  console.log('The imports of src/ go down the layers.');
}
