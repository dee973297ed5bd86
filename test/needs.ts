import { accessSync, appendFileSync, constants } from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import type { Test } from 'tap';

// The programs from outside npm that some tests need, and `needs`, which such a test calls
// first. Where one is missing the test is skipped with a reason naming it, so that the suite
// passes on a machine without them; under CI=true it fails instead: .ci/run installs every
// one of them, so a missing one there is a broken CI, not a skip to pass over.
// docs/testing.md, "Programs from outside npm", lists them.

export interface Program {
  /** Its name, as the messages give it. */
  name: string;
  /** The variable that names it instead of `command`: a path or command, or for a server its URL. */
  env?: string;
  /** The command looked up on PATH (or a path) when `env` is not set; none for a server only `env` names. */
  command?: string;
  /** How to get it, as .ci/run does. */
  install: string;
}

export const CHROMIUM: Program = {
  name: 'Chromium',
  env: 'PUPPETEER_EXECUTABLE_PATH',
  command: 'chromium',
  install: 'apt-get install chromium, as .ci/run does, or set PUPPETEER_EXECUTABLE_PATH (these tests need a real browser)',
};
export const PROMETHEUS: Program = {
  name: 'Prometheus',
  env: 'PROMETHEUS_BIN',
  command: 'prometheus',
  install: 'apt-get install --no-install-recommends prometheus, as .ci/run does, or set PROMETHEUS_BIN',
};
export const REDIS: Program = {
  name: 'Redis',
  env: 'TEST_REDIS_URL',
  install: 'apt-get install redis-server and start one on 127.0.0.1, as .ci/run does, with its URL in TEST_REDIS_URL',
};
export const BASH: Program = { name: 'bash', command: 'bash', install: 'apt-get install bash' };
export const CURL: Program = { name: 'curl', command: 'curl', install: 'apt-get install curl, as .ci/run does' };
export const GIT: Program = { name: 'git', command: 'git', install: 'apt-get install git' };

/** CI=true: where .ci/run runs, with every program installed. */
const CI = process.env.CI === 'true';

const root = new URL('../', import.meta.url).pathname;

/** The path of an executable `command` (a name looked up on PATH, or a path), or undefined. */
function which(command: string): string | undefined {
  const candidates = command.includes('/') ? [command] : (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, command));
  return candidates.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Where `program` is (its path, or a server's URL), or why it is not found. */
function find(program: Program): { found: string } | { missing: string } {
  const given = program.env ? process.env[program.env] || undefined : undefined;
  if (!program.command) return given ? { found: given } : { missing: `${program.name} not found (${program.env} is not set)` };
  const command = given ?? program.command;
  const found = which(command);
  if (found) return { found };
  const where = command.includes('/') ? `at ${command}` : 'on PATH';
  return { missing: `${program.name} not found ${where}${given ? ` (${program.env})` : ''}` };
}

/**
 * For a test that needs `program`, called before its first assertion: where it is (as `find`
 * says); or, when it is missing, undefined after failing the test under CI=true or skipping
 * it elsewhere, with a message naming the program and how to get it. The caller returns then.
 * A skip is also written to TEST_SKIPS_FILE when set, which scripts/tap-run.mjs lists at the end.
 */
export function needs(t: Test, program: Program): string | undefined {
  const place = find(program);
  if ('found' in place) return place.found;
  const message = `${place.missing}: ${program.install}`;
  if (CI) {
    t.fail(`${message} (under CI=true a missing program fails the test rather than skipping it)`);
    return undefined;
  }
  t.plan(0, message);
  if (process.env.TEST_SKIPS_FILE) appendFileSync(process.env.TEST_SKIPS_FILE, `${relative(root, process.argv[1] ?? '')}: ${message}\n`);
  return undefined;
}
