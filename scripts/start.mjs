// `npm start`: builds dist/ when it is missing or older than the sources, then serves.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function builtAt() {
  try {
    return statSync(join(root, 'dist/server.js')).mtimeMs;
  } catch {
    return 0;
  }
}

if (builtAt() < Math.max(newest(join(root, 'src')), statSync(join(root, 'tsconfig.json')).mtimeMs)) {
  console.error('Building dist/ ...');
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], {
    stdio: 'inherit',
  });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
}
await import(new URL('../dist/server.js', import.meta.url).href);
