// `npm start`: builds dist/ when it is missing or older than the sources, then serves it in
// this process. package.json runs it as `exec node <flags> scripts/start.mjs`: `exec` makes
// this process the one npm started, so npm's signals reach the server, and V8's flags go on the
// node command line, where Node takes them (scripts/node-flags.mjs). docs/operating.md, "Stopping".
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

// The server goes down with whatever started it: when npm (or the shell) is killed outright
// and this process is handed to another parent, it closes as on SIGTERM, but within 2 s (the
// parent is checked four times a second; the close is cut at 1.5 s), so that no orphan keeps
// the port with the settings of the run before.
const parent = process.ppid;
const watch = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(watch);
  console.error(`the process that started the server (pid ${parent}) is gone: closing`);
  process.kill(process.pid, 'SIGTERM');
  setTimeout(() => process.exit(1), 1500).unref();
}, 250).unref();

await import('../dist/server.js');
