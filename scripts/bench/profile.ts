import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time per function and per area
// (project file, npm package, Node internals, GC), dist/ locations mapped back to src/.

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface CpuProfile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  totalMs: number;
  /** share of the samples the process was idle (waiting for I/O) */
  idleShare: number;
  /** busy self time, highest first */
  functions: Array<{ name: string; location: string; selfMs: number; share: number }>;
  areas: Array<{ area: string; share: number }>;
}

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

function locator(root: string) {
  const maps = new Map<string, SourceMap | null>();
  return (url: string, line: number, column: number): string => {
    if (!url) return '(native)';
    if (!url.startsWith('file://')) return `${url}:${line + 1}`;
    const file = fileURLToPath(url);
    if (!maps.has(file)) {
      const mapFile = `${file}.map`;
      maps.set(file, file.includes('/dist/') && existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))) : null);
    }
    const entry = maps.get(file)?.findEntry(line, column) as { originalSource?: string; originalLine?: number } | undefined;
    if (entry?.originalSource) {
      const source = entry.originalSource.startsWith('file://') ? fileURLToPath(entry.originalSource) : resolve(dirname(file), entry.originalSource);
      return `${relative(root, source)}:${(entry.originalLine ?? 0) + 1}`;
    }
    return `${relative(root, file)}:${line + 1}`;
  };
}

function areaOf(root: string, url: string, name: string): string {
  if (SPECIAL.has(name)) return name;
  if (!url) return '(native: V8 builtins, addons)';
  if (url.startsWith('node:')) return 'node internals';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
  if (pkg) return pkg;
  return path.startsWith(root) ? relative(root, path).replace(/^dist\//, 'src/').replace(/\.js$/, '.ts') : path;
}

/** The monotonic clock V8 stamps profile samples with (CLOCK_MONOTONIC, µs), as process.hrtime reads it. */
export const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

/**
 * `window` (monotonic µs, see monotonicUs) keeps only the samples taken while the load ran,
 * leaving out start-up and shutdown.
 */
export function summarizeProfile(file: string, root: string, window?: { fromUs: number; toUs: number }, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const locate = locator(root);
  const functions = new Map<string, { name: string; location: string; us: number }>();
  const areas = new Map<string, number>();
  let total = 0, idle = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber, columnNumber } = byId.get(id)!.callFrame;
    const name = functionName || '(anonymous)';
    total += us;
    if (name === '(idle)') { idle += us; continue; }
    const location = SPECIAL.has(name) ? '' : locate(url, lineNumber, columnNumber);
    const key = `${name}@${location}`;
    const entry = functions.get(key) ?? { name, location, us: 0 };
    entry.us += us;
    functions.set(key, entry);
    const area = areaOf(root, url, name);
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  const busy = Math.max(1, total - idle);
  return {
    totalMs: total / 1000,
    idleShare: idle / Math.max(1, total),
    functions: [...functions.values()].sort((a, b) => b.us - a.us).slice(0, top)
      .map((f) => ({ name: f.name, location: f.location, selfMs: f.us / 1000, share: f.us / busy })),
    areas: [...areas.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([area, us]) => ({ area, share: us / busy })),
  };
}
