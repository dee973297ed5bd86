import { spawn } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';

// `npm run soak` itself, bounded to 3 seconds: it starts the server, reaches all thirteen
// operations, sees no 5xx and no broken connection, and reports what it measured.

const root = new URL('../../', import.meta.url).pathname;

t.test('a 3-second soak drives every operation without a 5xx', async (t) => {
  const child = spawn(process.execPath, [join(root, 'scripts/run-ts.mjs'), join(root, 'scripts/soak.ts'), '--seconds', '3', '--connections', '4'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  t.equal(code, 0, 'the soak exits 0');
  if (code !== 0) t.comment(output);

  const line = /^SOAK_RESULT (.*)$/m.exec(output);
  t.ok(line, 'the soak reports a summary');
  const summary = JSON.parse(line![1]);
  t.equal(Object.keys(summary.operations).length, 13, 'all thirteen operations were called');
  t.equal(summary.fiveHundreds, 0);
  t.equal(summary.connectionErrors, 0);
  t.ok(summary.statuses['200'] > 0, 'valid requests succeed');
  t.ok(Object.keys(summary.statuses).some((s) => s.startsWith('4')), 'invalid requests are refused with 4xx');
  t.ok(summary.rssMb.first > 0 && summary.rssMb.peak >= summary.rssMb.last, 'RSS was sampled');
  t.match(output, /RSS MB: first [\d.]+, peak [\d.]+, last [\d.]+/);
});
