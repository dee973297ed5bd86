// `npm run check:compat` (README, "Releasing"): a change that breaks clients generated from the
// released contract fails the check unless the major version was raised; other changes pass.
// Each case compares two temporary copies of the working contract, one of them changed.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parse, stringify } from 'yaml';
import { checkCompat, formatReport } from '../../scripts/check-compat.js';

const root = new URL('../../', import.meta.url).pathname;
const contractText = readFileSync(join(root, 'openapi/openapi.yaml'), 'utf8');

type Contract = { info: { version: string }; components: { schemas: Record<string, { properties: Record<string, unknown> }> } };

const dir = mkdtempSync(join(tmpdir(), 'check-compat-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
let written = 0;

/** A copy of the contract at `version`, changed by `change`; its path. */
function contractFile(version: string, change: (contract: Contract) => void = () => {}): string {
  const contract = parse(contractText) as Contract;
  contract.info.version = version;
  change(contract);
  const path = join(dir, `openapi-${++written}.yaml`);
  writeFileSync(path, stringify(contract));
  return path;
}

const removeTagColor = (contract: Contract) => {
  delete contract.components.schemas.TagResponse.properties.Color;
};
const addTagNote = (contract: Contract) => {
  contract.components.schemas.TagResponse.properties.Note = { type: 'string' };
};

const released = contractFile('1.4.2');

function compatCommand(current: string) {
  return spawnSync(
    process.execPath,
    [join(root, 'scripts/run-ts.mjs'), join(root, 'scripts/check-compat.ts'), '--released', released, '--current', current],
    { cwd: root, encoding: 'utf8', timeout: 60000 },
  );
}

t.test('a response property removed within the same major version fails, listing the change', async (t) => {
  const current = contractFile('1.5.0', removeTagColor);
  const report = await checkCompat({ released, current });
  t.match(report.failure, /breaking change.*2\.0\.0/);
  t.ok(report.breaking.length > 0, 'breaking changes are listed');
  const tags = report.breaking.find((change) => change.where === 'DELETE /tags/{Id}, response 200 body');
  t.ok(tags, 'the operation answering a tag is named');
  t.strictSame(tags?.what, ['Color removed']);
  t.ok(report.breaking.every((change) => change.code === 'response.body.scope.add'), 'classified as a widened response');

  const run = compatCommand(current);
  t.equal(run.status, 1, 'the script exits with 1');
  t.match(run.stderr, `(version 1.5.0) with the released ${released} (version 1.4.2)`, 'it says which versions it compared');
  t.match(run.stderr, 'DELETE /tags/{Id}, response 200 body: Color removed');
  t.match(run.stderr, /FAILED: .*breaking/);
});

t.test('the same change with the major version raised passes, still listing it', async (t) => {
  const current = contractFile('2.0.0', removeTagColor);
  const report = await checkCompat({ released, current });
  t.equal(report.failure, undefined);
  t.ok(report.breaking.some((change) => change.what.includes('Color removed')));
  t.match(formatReport(report), /OK: the breaking changes come with a new major version \(1\.4\.2 → 2\.0\.0\)/);

  const run = compatCommand(current);
  t.equal(run.status, 0, run.stderr);
  t.match(run.stdout, 'Breaking changes');
});

t.test('an added optional response property is not breaking and passes', async (t) => {
  const report = await checkCompat({ released, current: contractFile('1.5.0', addTagNote) });
  t.equal(report.failure, undefined);
  t.strictSame(report.breaking, []);
  const tags = report.nonBreaking.find((change) => change.where === 'DELETE /tags/{Id}, response 200 body');
  t.strictSame(tags?.what, ['Note added'], 'listed as non-breaking');
  t.match(formatReport(report), /Non-breaking changes \(\d+\):[^]*Note added[^]*OK: clients generated/);
});

t.test('a working version below the released one fails', async (t) => {
  const report = await checkCompat({ released, current: contractFile('1.4.1') });
  t.match(report.failure, 'version 1.4.1 is below the released 1.4.2');
});

t.test('a version that is not major.minor.patch is refused', async (t) => {
  await t.rejects(checkCompat({ released, current: contractFile('1.5') }), /info\.version "1\.5" is not a semantic version/);
});
