// `npm start`: builds dist/ when it is missing or older than the sources, then serves it in a
// child, `node <NODE_FLAGS> dist/server.js`: V8's flags go on the node command line, where Node
// documents them (scripts/node-flags.mjs).
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from './node-flags.mjs';

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

// The server runs in a session of its own (detached), so a Ctrl-C in the terminal reaches this
// launcher only, which passes each signal on once: the server closes gracefully on the first
// and at once on a second (docs/operating.md, "Stopping"), as when it ran in this process.
const server = spawn(process.execPath, [...NODE_FLAGS, join(root, 'dist/server.js')], { stdio: 'inherit', detached: true });
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const forward = (signal) => server.kill(signal);
for (const signal of forwarded) process.on(signal, forward);

server.on('error', (err) => {
  console.error(`could not start dist/server.js: ${err.message}`);
  process.exit(1);
});
server.on('exit', (code, signal) => {
  if (!signal) process.exit(code ?? 1);
  // Die of the same signal, so the caller sees what the server saw.
  for (const s of forwarded) process.off(s, forward);
  process.kill(process.pid, signal);
});
