// Runs a TypeScript script through tsx: `node scripts/run-ts.mjs <file.ts> [args...]`.
// A separate process (rather than registering tsx here) keeps the script's own argv,
// stdio and exit code exactly as if it had been started directly.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const [script, ...args] = process.argv.slice(2);
if (!script) {
  console.error('usage: node scripts/run-ts.mjs <script.ts> [args...]');
  process.exit(2);
}

// Resolved from this file, so tsx is found whatever the working directory.
const tsx = import.meta.resolve('tsx');
const child = spawn(process.execPath, ['--import', tsx, resolve(script), ...args], { stdio: 'inherit' });

// Ctrl-C reaches the child through the terminal; a kill aimed at this launcher is passed on.
for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));

child.on('error', (err) => {
  console.error(`could not start ${script}: ${err.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  // Die of the same signal so the caller sees what the child saw.
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
