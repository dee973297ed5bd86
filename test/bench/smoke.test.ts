import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { OPERATIONS } from '../../scripts/bench/operations.js';

// `npm run bench` at a tiny scale, so the benchmark cannot silently rot: it must complete,
// and report a number for every operation and a verdict for every target. Its output goes
// to a temporary directory, never to bench/.

const root = new URL('../../', import.meta.url).pathname;

t.test('the bench runs end to end at a tiny scale and reports every operation', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const run = spawnSync(
    process.execPath,
    [join(root, 'scripts/run-ts.mjs'), join(root, 'scripts/bench/index.ts'),
      '--scale', '0.001', '--duration', '0.3', '--rounds', '1', '--warmup', '0', '--connections', '4',
      '--server', 'tsx', '--max-profiles', '1', '--out', dir, '--work', join(dir, 'work')],
    { cwd: root, encoding: 'utf8', timeout: 170_000 },
  );
  t.equal(run.status, 0, `bench exited with ${run.status}:\n${run.stderr.slice(-3000)}`);

  const results = JSON.parse(readFileSync(join(dir, 'work/results.json'), 'utf8'));
  t.same(results.ops.map((o: { id: string }) => o.id), OPERATIONS.map((o) => o.id), 'every operation is reported, in order');
  for (const op of results.ops) {
    t.ok(op.answer.ok, `${op.id} answered its expected status (got ${op.answer.status})`);
    for (const field of ['rps', 'fastifyRps', 'nodeRps', 'ratioFastify', 'ratioNode', 'p50', 'p99', 'smallP99', 'growth']) {
      t.ok(Number.isFinite(op[field]) && op[field] > 0, `${op.id}: ${field} is a positive number (${op[field]})`);
    }
  }
  t.ok(results.full.startupMs > 0 && results.full.peakRssKb > 0, 'start-up time and peak RSS are measured');
  t.equal(results.checks.length, 16, 'every target has a verdict');
  const missed = new Set(results.checks.filter((c: { met: boolean }) => !c.met).map((c: { profile: string }) => c.profile));
  t.equal(results.profiles.length, Math.min(1, missed.size), 'a missed target is profiled (at most --max-profiles)');
  for (const profile of results.profiles) t.ok(profile.summary?.functions.length > 0, `the profile of ${profile.subject} names functions`);

  const markdown = readFileSync(join(dir, 'results.md'), 'utf8');
  for (const op of OPERATIONS) {
    const row = markdown.split('\n').find((line) => line.startsWith(`| ${op.label} |`));
    t.match(row, /\| [\d,]+ \| [\d,]+ \| [\d,]+ \| \d+% \| \d+% \| [\d.]+ \| [\d.]+ \|/, `results.md has numbers for ${op.label}`);
  }
  t.match(readFileSync(join(dir, 'ratios.svg'), 'utf8'), /^<svg [^>]*>[\s\S]*read target 60%[\s\S]*<\/svg>\n$/);
});
