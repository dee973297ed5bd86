// `npm run check:compat [-- --released <file> --current <file>]`
// Compares the working contract (openapi/openapi.yaml) with the last released one
// (openapi/released/openapi.yaml) through openapi-diff, which classifies each difference as
// breaking or not for clients generated from the released contract. Breaking changes fail
// (exit 1) unless the working contract's major version is above the released one's; the other
// differences are listed and pass. README, "Releasing".
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import OpenApiDiff from 'openapi-diff';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('../', import.meta.url));
export const defaultPaths = {
  released: resolve(root, 'openapi/released/openapi.yaml'),
  current: resolve(root, 'openapi/openapi.yaml'),
};

type Difference = OpenApiDiff.DiffResult<OpenApiDiff.DiffResultType>;

export interface Change {
  code: string;
  /** Where, as the operation and the part of it (`DELETE /tags/{Id}, response 200 body`). */
  where: string;
  /** What differs there, property by property, when the schemas tell (`Color removed`). */
  what: string[];
}

export interface CompatReport {
  released: { path: string; version: string };
  current: { path: string; version: string };
  breaking: Change[];
  nonBreaking: Change[];
  /** Differences openapi-diff does not classify (`x-` extensions): listed for a reviewer. */
  unclassified: Change[];
  /** Why the check fails; undefined when it passes. */
  failure?: string;
}

const semver = /^(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

function versionOf(text: string, path: string): { version: string; parts: number[] } {
  const version = (parse(text) as { info?: { version?: unknown } } | null)?.info?.version;
  const match = typeof version === 'string' ? semver.exec(version) : null;
  if (!match) throw new Error(`${path}: info.version ${JSON.stringify(version)} is not a semantic version (major.minor.patch)`);
  return { version: version as string, parts: match.slice(1, 4).map(Number) };
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

export async function checkCompat(paths: { released?: string; current?: string } = {}): Promise<CompatReport> {
  const releasedPath = paths.released ?? defaultPaths.released;
  const currentPath = paths.current ?? defaultPaths.current;
  const [releasedText, currentText] = await Promise.all([readFile(releasedPath, 'utf8'), readFile(currentPath, 'utf8')]);
  const released = versionOf(releasedText, releasedPath);
  const current = versionOf(currentText, currentPath);

  const outcome = await OpenApiDiff.diffSpecs({
    sourceSpec: { content: releasedText, location: releasedPath, format: 'openapi3' },
    destinationSpec: { content: currentText, location: currentPath, format: 'openapi3' },
  });
  const report: CompatReport = {
    released: { path: releasedPath, version: released.version },
    current: { path: currentPath, version: current.version },
    breaking: outcome.breakingDifferencesFound ? outcome.breakingDifferences.map(describe) : [],
    nonBreaking: outcome.nonBreakingDifferences.map(describe),
    unclassified: outcome.unclassifiedDifferences.map(describe),
  };
  if (compareVersions(current.parts, released.parts) < 0) {
    report.failure = `the working contract's version ${current.version} is below the released ${released.version}`;
  } else if (report.breaking.length > 0 && current.parts[0] <= released.parts[0]) {
    report.failure =
      `${report.breaking.length} breaking change(s) need a new major version: ` +
      `raise info.version to ${released.parts[0] + 1}.0.0 (it is ${current.version}) and record the changes in CHANGELOG.md`;
  }
  return report;
}

const methods = /^paths\.(\/.*?)\.(get|put|post|delete|options|head|patch|trace)(?=\.|$)\.?(.*)$/;

/** `paths./tags/{Id}.delete.responses.200.content.application/json.schema` → readable. */
function place(location: string): string {
  const match = methods.exec(location);
  if (!match) return location;
  const [, path, method, rest] = match;
  const part = rest
    .replace(/^responses\.([^.]+)\.content\.[^.]+\.schema$/, 'response $1 body')
    .replace(/^responses\.([^.]+)\.headers\.(.+)$/, 'response $1 header $2')
    .replace(/^responses\.([^.]+)$/, 'response $1')
    .replace(/^requestBody\.content\.[^.]+\.schema$/, 'request body');
  return `${method.toUpperCase()} ${path}${part ? `, ${part}` : ''}`;
}

function describe(difference: Difference): Change {
  const before = difference.sourceSpecEntityDetails[0];
  const after = difference.destinationSpecEntityDetails[0];
  const what = difference.entity.endsWith('body.scope') ? schemaChanges(before?.value, after?.value, '', new Set()) : [];
  return { code: difference.code, where: place((before ?? after)?.location ?? '(the whole contract)'), what };
}

type Schema = {
  type?: string;
  format?: string;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
};

function typeOf(schema: Schema): string {
  return [schema.type ?? 'any', schema.format].filter(Boolean).join(' ');
}

/**
 * openapi-diff says a body's set of values grew or shrank, not why; the (dereferenced) schemas
 * before and after tell which property was removed, added, retyped or made required.
 */
function schemaChanges(before: Schema | undefined, after: Schema | undefined, at: string, seen: Set<Schema>): string[] {
  if (!before || !after || typeof before !== 'object' || typeof after !== 'object' || seen.has(before)) return [];
  // `seen` holds the schemas being walked, so a recursive schema ends instead of looping.
  seen.add(before);
  const name = at || 'the body';
  const changes: string[] = [];
  if (typeOf(before) !== typeOf(after)) changes.push(`${name}: ${typeOf(before)} → ${typeOf(after)}`);
  if (JSON.stringify(before.enum) !== JSON.stringify(after.enum)) {
    changes.push(`${name}: enum ${JSON.stringify(before.enum ?? 'any')} → ${JSON.stringify(after.enum ?? 'any')}`);
  }
  const [propsBefore, propsAfter] = [before.properties ?? {}, after.properties ?? {}];
  const [requiredBefore, requiredAfter] = [new Set(before.required), new Set(after.required)];
  for (const key of new Set([...Object.keys(propsBefore), ...Object.keys(propsAfter)])) {
    const path = at ? `${at}.${key}` : key;
    if (!(key in propsAfter)) changes.push(`${path} removed`);
    else if (!(key in propsBefore)) changes.push(`${path} added${requiredAfter.has(key) ? ', required' : ''}`);
    else {
      if (!requiredBefore.has(key) && requiredAfter.has(key)) changes.push(`${path} now required`);
      if (requiredBefore.has(key) && !requiredAfter.has(key)) changes.push(`${path} no longer required`);
      changes.push(...schemaChanges(propsBefore[key], propsAfter[key], path, seen));
    }
  }
  changes.push(...schemaChanges(before.items, after.items, `${name}[]`, seen));
  seen.delete(before);
  return changes;
}

export function formatReport(report: CompatReport): string {
  const shown = (path: string) => {
    const near = relative(process.cwd(), path);
    return near && !near.startsWith('..') ? near : path;
  };
  const lines = [
    `Compared ${shown(report.current.path)} (version ${report.current.version}) ` +
      `with the released ${shown(report.released.path)} (version ${report.released.version}).`,
  ];
  const list = (title: string, changes: Change[]) => {
    if (changes.length === 0) return;
    lines.push(`${title} (${changes.length}):`);
    for (const change of changes) {
      lines.push(`  ${change.code}  ${change.where}${change.what.length ? `: ${change.what.join('; ')}` : ''}`);
    }
  };
  list('Breaking changes', report.breaking);
  list('Non-breaking changes', report.nonBreaking);
  list('Unclassified changes (review them by hand)', report.unclassified);
  if (report.breaking.length + report.nonBreaking.length + report.unclassified.length === 0) {
    lines.push('openapi-diff finds no differences.');
  }
  lines.push(
    report.failure
      ? `FAILED: ${report.failure}.`
      : report.breaking.length > 0
        ? `OK: the breaking changes come with a new major version (${report.released.version} → ${report.current.version}).`
        : 'OK: clients generated from the released contract keep working.',
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { released: { type: 'string' }, current: { type: 'string' } }, strict: true });
  const report = await checkCompat({
    released: values.released ? resolve(values.released) : undefined,
    current: values.current ? resolve(values.current) : undefined,
  });
  if (report.failure) {
    console.error(formatReport(report));
    process.exitCode = 1;
  } else {
    console.log(formatReport(report));
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((err: unknown) => {
    console.error(`check:compat: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
