// `npm run check:compat [-- --released <file> --current <file>] [-- --accept-breaking]`
// Compares the working contract (openapi/openapi.yaml) with the last released one
// (openapi/released/openapi.yaml), both as OpenAPI 3.0 (toOpenApi30's copies: openapi-diff reads
// no 3.1), and classifies each difference as breaking or not for clients generated from the
// released contract and for webhook receivers: openapi-diff reads operations, statuses, headers
// and JSON bodies; check-compat/ walks both for what it does not read (parameters, enum values,
// format, pattern, nullable, the webhooks) by the rule of docs/decisions.md, "Contract
// compatibility". The gate judges the wire: a breaking change fails (exit 1) whatever
// info.version says, unless accepted (--accept-breaking) with a new major version; the other
// differences are listed and pass. docs/contract.md, "Releasing".
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import OpenApiDiff from 'openapi-diff';
import { parse } from 'yaml';
import { toOpenApi30 } from '../src/contract/openapi-3.0.js';
import { compareDocuments, withoutUnions, type Document, type Finding } from './check-compat/documents.js';
import { compareSchemas, type Schema } from './check-compat/schemas.js';

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
  /** The breaking changes were accepted (`--accept-breaking`) for a new major version. */
  acceptBreaking: boolean;
  /** Why the check fails; undefined when it passes. */
  failure?: string;
}

const semver = /^(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

function versionOf(document: Document | null, path: string): { version: string; parts: number[] } {
  const version = (document as { info?: { version?: unknown } } | null)?.info?.version;
  const match = typeof version === 'string' ? semver.exec(version) : null;
  if (!match) throw new Error(`${path}: info.version ${JSON.stringify(version)} is not a semantic version (major.minor.patch)`);
  return { version: version as string, parts: match.slice(1, 4).map(Number) };
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/**
 * Compares the two contracts. `acceptBreaking` lets breaking changes pass, for a deliberate
 * breaking release: only with the major version raised (`npm test` never passes it).
 */
export async function checkCompat(
  paths: { released?: string; current?: string } = {},
  { acceptBreaking = false }: { acceptBreaking?: boolean } = {},
): Promise<CompatReport> {
  const releasedPath = paths.released ?? defaultPaths.released;
  const currentPath = paths.current ?? defaultPaths.current;
  const [releasedText, currentText] = await Promise.all([readFile(releasedPath, 'utf8'), readFile(currentPath, 'utf8')]);
  const [releasedDocument, currentDocument] = [parse(releasedText) as Document | null, parse(currentText) as Document | null];
  const released = versionOf(releasedDocument, releasedPath);
  const current = versionOf(currentDocument, currentPath);
  const [releasedCopy, currentCopy] = [toOpenApi30(releasedDocument!), toOpenApi30(currentDocument!)];

  const outcome = await OpenApiDiff.diffSpecs({
    sourceSpec: { content: JSON.stringify(withoutUnions(releasedCopy)), location: releasedPath, format: 'openapi3' },
    destinationSpec: { content: JSON.stringify(withoutUnions(currentCopy)), location: currentPath, format: 'openapi3' },
  });
  const report: CompatReport = {
    released: { path: releasedPath, version: released.version },
    current: { path: currentPath, version: current.version },
    breaking: outcome.breakingDifferencesFound ? outcome.breakingDifferences.map(describe) : [],
    nonBreaking: outcome.nonBreakingDifferences.map(describe),
    // The webhooks are the walk's to judge: openapi-diff sees an extension (`x-webhooks`).
    unclassified: outcome.unclassifiedDifferences.map(describe).filter((change) => !/^x-webhooks(\.|$)/.test(change.where)),
    acceptBreaking,
  };
  merge(report, compareDocuments(releasedCopy, currentCopy));
  const count = `${report.breaking.length} breaking change(s)`;
  const major = `${released.parts[0] + 1}.0.0`;
  if (compareVersions(current.parts, released.parts) < 0) {
    report.failure = `the working contract's version ${current.version} is below the released ${released.version}`;
  } else if (report.breaking.length > 0 && !acceptBreaking) {
    report.failure =
      `${count}: the gate judges the wire, whatever info.version says (it is ${current.version}). ` +
      `A deliberate breaking release raises info.version to ${major}, records the changes in CHANGELOG.md ` +
      'and runs `npm run check:compat -- --accept-breaking`';
  } else if (report.breaking.length > 0 && current.parts[0] <= released.parts[0]) {
    report.failure =
      `${count} accepted with --accept-breaking need a new major version: ` +
      `raise info.version to ${major} (it is ${current.version}) and record the changes in CHANGELOG.md`;
  }
  return report;
}

const methods = /^paths\.(\/.*?)\.(get|put|post|delete|options|head|patch|trace)(?=\.|$)\.?(.*)$/;

/** `paths./tags/{Id}.delete.responses.200.content.application/json.schema` → readable; `paths./tags` → `/tags`. */
function place(location: string): string {
  const match = methods.exec(location);
  if (!match) return location.replace(/^paths\./, '');
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
  // openapi-diff says a body's set of values grew or shrank, not why; the (dereferenced)
  // schemas before and after tell which property was removed, added, retyped or made required.
  const direction = difference.entity.startsWith('request') ? 'request' : 'response';
  const same = (node: unknown) => node as Schema | undefined;
  const what = difference.entity.endsWith('body.scope')
    ? compareSchemas(before?.value, after?.value, direction, { before: same, after: same }).map((change) => change.text)
    : [];
  return { code: difference.code, where: place((before ?? after)?.location ?? '(the whole contract)'), what };
}

/** Adds the walk's findings to openapi-diff's report, each change listed once. */
function merge(report: CompatReport, findings: Finding[]): void {
  const at = (where: string) => findings.filter((finding) => finding.where === where);
  // openapi-diff reads a new optional request property as a narrowing (any value was allowed
  // under its name before); when the walk finds nothing breaking in that body, it is an addition.
  report.breaking = report.breaking.filter((change) => {
    const here = at(change.where);
    const added =
      change.code === 'request.body.scope.remove' && here.some((f) => f.code === 'request.body.add') && !here.some((f) => f.breaking);
    if (added) report.nonBreaking.push(change);
    return !added;
  });
  const listed = (changes: Change[], finding: Finding) =>
    changes.some((c) => c.where === finding.where && c.what.includes(finding.text));
  const add = (changes: Change[], finding: Finding) => {
    const change = changes.find((c) => c.code === finding.code && c.where === finding.where);
    if (change) change.what.push(finding.text);
    else changes.push({ code: finding.code, where: finding.where, what: [finding.text] });
  };
  for (const finding of findings) {
    if (listed(report.breaking, finding)) continue;
    if (finding.breaking) add(report.breaking, finding);
    else if (!listed(report.nonBreaking, finding)) add(report.nonBreaking, finding);
  }
  // A change the walk judges breaking is not listed again among openapi-diff's non-breaking
  // ones (a field removed from a request widens what it accepts, but clients lose the field).
  report.nonBreaking = report.nonBreaking.filter((change) => {
    if (change.what.length === 0) return true;
    change.what = change.what.filter((text) => !report.breaking.some((c) => c.where === change.where && c.what.includes(text)));
    return change.what.length > 0;
  });
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
    lines.push('No differences found.');
  }
  lines.push(
    report.failure
      ? `FAILED: ${report.failure}.`
      : report.breaking.length > 0
        ? 'OK: the breaking changes are accepted (--accept-breaking) with a new major version ' +
          `(${report.released.version} → ${report.current.version}).`
        : "OK: clients generated from the released contract, and the webhooks' receivers, keep working.",
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { released: { type: 'string' }, current: { type: 'string' }, 'accept-breaking': { type: 'boolean' } },
    strict: true,
  });
  const report = await checkCompat(
    {
      released: values.released ? resolve(values.released) : undefined,
      current: values.current ? resolve(values.current) : undefined,
    },
    { acceptBreaking: values['accept-breaking'] === true },
  );
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
