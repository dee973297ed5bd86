import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import t from 'tap';
import { CONFIG_KEYS } from '../../src/config.js';
import { loadDemoData } from '../../src/import/demo-data.js';
import { assertContract, buildTestApp, TEST_SECRET } from '../helper.js';
import { BASH, CURL, GIT, needs } from '../needs.js';

// README and docs/ stay honest: README fits on a few screens, every link and anchor leads
// somewhere, every npm command they name exists, the configuration table names every
// variable, and the commands of README's first call and of docs/api.md run against a
// server on a fresh store with the demo data, each answer checked against the contract.
const root = new URL('../../', import.meta.url).pathname;
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const DOCS = ['README.md', 'SECURITY.md', 'CHANGELOG.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
const anchors = (file: string) => new Set(read(file).split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => slug(l.replace(/^#+ /, ''))));
/** The fenced blocks of a markdown text that follow a heading, in order. */
const blocksAfter = (text: string, heading: string) => {
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const rest = text.slice(start + heading.length + 2);
  const section = rest.slice(0, rest.search(/\n## /) >>> 0);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
};

t.test('README is the front door: at most 150 lines', async (t) => {
  const lines = read('README.md').split('\n').length - 1;
  t.ok(lines <= 150, `README.md has ${lines} lines`);
});

t.test('every relative link of README, SECURITY.md, CHANGELOG.md and docs/ leads to a file, and its anchor to a heading', async (t) => {
  for (const file of DOCS) {
    for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [path, anchor] = target.split('#');
      const linked = path ? relative(root, join(root, dirname(file), path)) : file;
      t.ok(existsSync(join(root, linked)), `${file} → ${target}: ${linked} exists`);
      if (anchor && linked.endsWith('.md') && existsSync(join(root, linked))) t.ok(anchors(linked).has(anchor), `${file} → ${target}: the heading exists`);
    }
  }
});

t.test('every citation of a doc in the code names a doc that exists, and a heading or lead of it', async (t) => {
  // The files git tracks: not what lies around in the working tree.
  if (!needs(t, GIT)) return;
  const sources = spawnSync('git', ['ls-files', 'src', 'scripts', 'test', '.ci', 'openapi'], { cwd: root, encoding: 'utf8' }).stdout.trim().split('\n');
  let cited = 0;
  for (const source of sources) {
    if (!existsSync(join(root, source))) continue;
    const text = read(source).replace(/\n\s*(?:\/\/|\*|#) ?/g, ' ');
    for (const [, doc, title] of text.matchAll(/\b((?:docs\/[a-z-]+|SECURITY)\.md)(?:, | \()"([^"]+)"/g)) {
      cited++;
      if (!t.ok(existsSync(join(root, doc)), `${source}: ${doc} exists`)) continue;
      const body = read(doc);
      // A heading (SECURITY.md's numbered ones without their number), or a paragraph's bold lead.
      const named = body.split('\n').some((l) => l.startsWith('#') && l.replace(/^#+ (?:\d+a?\. )?/, '') === title) || body.includes(`**${title}.**`) || body.includes(`**${title}**`);
      t.ok(named, `${source}: ${doc}, "${title}"`);
    }
  }
  t.ok(cited > 100, `${cited} citations checked`);
});

t.test('every npm command README and docs/ name is a script of package.json', async (t) => {
  const scripts = new Set(Object.keys(JSON.parse(read('package.json')).scripts));
  let named = 0;
  for (const file of DOCS) {
    for (const [, name] of read(file).matchAll(/\bnpm run (?:--silent |-s )?([a-z][\w:-]*)/g)) {
      named++;
      t.ok(scripts.has(name), `${file}: npm run ${name}`);
    }
  }
  t.ok(named > 20, `${named} commands checked`);
});

t.test('docs/configuration.md has a row for every variable src/config.ts reads, and for none other', async (t) => {
  const rows = read('docs/configuration.md').split('\n').filter((l) => l.startsWith('| `'));
  const documented = new Set(rows.flatMap((row) => [...row.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1])));
  documented.delete('OTEL_EXPORTER_OTLP_ENDPOINT'); // read by OpenTelemetry's SDK (src/tracing/tracing.ts), not src/config.ts
  t.same([...documented].sort(), [...CONFIG_KEYS].sort());
});

/** Runs sh commands in bash against `base`, with curl recording each exchange; the exchanges. */
async function runCommands(script: string, base: string) {
  const dir = mkdtempSync(join(tmpdir(), 'readme-'));
  try {
    // Numbered by the calls recorded so far: a curl in a pipeline runs in a subshell of its own.
    const wrapped = `set -e
touch "$DIR/calls"
curl() { local n=$(($(wc -l < "$DIR/calls") + 1)); command curl -sS -o "$DIR/$n.body" -D "$DIR/$n.head" -w '%{method} %{url_effective} %{http_code}\\n' "$@" >> "$DIR/calls"; }
${script.replaceAll('http://127.0.0.1:3000', base)}`;
    const { DATABASE_URL: _db, TEST_DATABASE_URL: _test, ...env } = process.env;
    // Asynchronously: the server answering the commands runs in this process.
    const run = await promisify(execFile)('bash', ['-c', wrapped], { cwd: root, env: { ...env, DIR: dir, AUTH_JWT_SECRET: TEST_SECRET }, timeout: 120_000 })
      .then(({ stderr }) => ({ status: 0, stderr }), (error: { code?: number; stderr?: string }) => ({ status: error.code ?? 1, stderr: String(error.stderr ?? error) }));
    const calls = existsSync(join(dir, 'calls')) ? readFileSync(join(dir, 'calls'), 'utf8').trim().split('\n') : [];
    return {
      status: run.status,
      stderr: run.stderr,
      exchanges: calls.map((line, i) => {
        const [method, url, code] = line.split(' ');
        const head = readFileSync(join(dir, `${i + 1}.head`), 'utf8');
        const body = readFileSync(join(dir, `${i + 1}.body`), 'utf8');
        const type = /^content-type: *(.+?)\r?$/im.exec(head)?.[1] ?? '';
        return { method, url, response: { statusCode: Number(code), headers: { 'content-type': type }, body, json: () => JSON.parse(body) }, head };
      }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

t.test("README's first call and docs/api.md's commands run on a fresh store with the demo data", async (t) => {
  if (!needs(t, BASH) || !needs(t, CURL)) return;
  const api = await buildTestApp(t);
  await loadDemoData(api.store);
  await api.app.listen({ host: '127.0.0.1', port: 0 });
  const address = api.app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

  const [first] = blocksAfter(read('README.md'), '## A first call');
  t.match(first, 'B=http://127.0.0.1:3000', "README's commands call the server npm start serves");
  const readme = await runCommands(first, base);
  t.equal(readme.status, 0, `README's commands ran: ${readme.stderr.slice(-2000)}`);
  t.equal(readme.exchanges.length, first.split('\n').filter((l) => l.startsWith('curl ')).length, 'every curl of README answered');
  for (const { method, url, response } of readme.exchanges) {
    const path = url.slice(base.length);
    t.equal(response.statusCode, 200, `README: ${method} ${path}`);
    t.doesNotThrow(() => assertContract(method, path, response), `README: ${method} ${path} answered as the contract says`);
  }

  const apiDoc = read('docs/api.md');
  const script = [...blocksAfter(apiDoc, '## Trying it (against the demo data)'), ...blocksAfter(apiDoc, '## Retried writes')].join('\n');
  // The retried write, sent again with its key as its comment says.
  const docs = await runCommands(`${script}\ncurl -s -X POST "$B/rebatecodes/transactions" -H "$H" -H "Idempotency-Key: $KEY" -H 'Content-Type: application/json' -d '{"RebateCodeId":101,"Amount":50,"Usage":0,"ChangeType":"Decrease"}'\n`, base);
  t.equal(docs.status, 0, `docs/api.md's commands ran: ${docs.stderr.slice(-2000)}`);
  t.ok(docs.exchanges.length >= 15, `${docs.exchanges.length} calls`);
  for (const { method, url, response } of docs.exchanges) {
    const path = url.slice(base.length);
    t.ok(response.statusCode < 500, `docs/api.md: ${method} ${path} answered ${response.statusCode}`);
    t.doesNotThrow(() => assertContract(method, path, response), `docs/api.md: ${method} ${path} answered as the contract says`);
  }
  const [keyed, replay] = docs.exchanges.slice(-2);
  t.equal(replay.response.body, keyed.response.body, 'the retry got the first answer');
  t.match(replay.head, /^idempotent-replayed: true\r?$/im, 'marked as replayed');
});
