import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLoad } from './load.js';
import { mcpProfileRequest, raiseBudget } from './mcp.js';
import { ENGINE_LABEL, type Engine } from './measure.js';
import { OPERATIONS, type OpRequest } from './operations.js';
import { startApi, type Child, type ServerCommand } from './servers.js';
import type { TargetCheck } from './summary.js';

// CPU profiles of the missed targets: the server under `node --cpu-prof`, its .cpuprofile
// summarised as self time per function and per area (project file, npm package, Node
// internals, GC), dist/ locations mapped back to src/.

export interface ProfileSummary {
  totalMs: number;
  /** share of the samples the process was idle (waiting for I/O) */
  idleShare: number;
  /** busy self time, highest first */
  functions: Array<{ name: string; location: string; selfMs: number; share: number }>;
  areas: Array<{ area: string; share: number }>;
}

export interface ProfileReport {
  engine: Engine;
  /** what ran while profiling: an operation's label, its tool call, or start-up */
  subject: string;
  targets: string[];
  summary?: ProfileSummary;
  error?: string;
}

interface CpuProfile {
  startTime: number;
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
}

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

function locator(root: string) {
  const maps = new Map<string, SourceMap | null>();
  return (url: string, line: number, column: number): string => {
    if (!url) return '(native)';
    if (!url.startsWith('file://')) return `${url}:${line + 1}`;
    const file = fileURLToPath(url);
    if (!maps.has(file)) maps.set(file, file.includes('/dist/') && existsSync(`${file}.map`) ? new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))) : null);
    const entry = maps.get(file)?.findEntry(line, column) as { originalSource?: string; originalLine?: number } | undefined;
    if (!entry?.originalSource) return `${relative(root, file)}:${line + 1}`;
    const source = entry.originalSource.startsWith('file://') ? fileURLToPath(entry.originalSource) : resolve(dirname(file), entry.originalSource);
    return `${relative(root, source)}:${(entry.originalLine ?? 0) + 1}`;
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
const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

/** `window` (monotonic µs) keeps only the samples taken while the load ran, leaving out start-up and shutdown. */
function summarizeProfile(file: string, root: string, window?: { fromUs: number; toUs: number }, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (!window || (at >= window.fromUs && at <= window.toUs)) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const locate = locator(root);
  const functions = new Map<string, { name: string; location: string; us: number }>();
  const areas = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber, columnNumber } = byId.get(id)!.callFrame;
    const name = functionName || '(anonymous)';
    total += us;
    if (name === '(idle)') { idle += us; continue; }
    const location = SPECIAL.has(name) ? '' : locate(url, lineNumber, columnNumber);
    const entry = functions.get(`${name}@${location}`) ?? { name, location, us: 0 };
    entry.us += us;
    functions.set(`${name}@${location}`, entry);
    const area = areaOf(root, url, name);
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  const busy = Math.max(1, total - idle);
  return {
    totalMs: total / 1000,
    idleShare: idle / Math.max(1, total),
    functions: [...functions.values()].sort((a, b) => b.us - a.us).slice(0, top).map((f) => ({ name: f.name, location: f.location, selfMs: f.us / 1000, share: f.us / busy })),
    areas: [...areas.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([area, us]) => ({ area, share: us / busy })),
  };
}

/**
 * The CPU profile of a server under load: `start` spawns it with `nodeArgs` (V8's profiler,
 * writing into `dir`), `load` runs against its URL, then it is stopped gracefully so V8 writes
 * the profile; the busiest thread's profile is summarised over the load alone (none: start-up).
 */
export async function profileServer(
  root: string,
  dir: string,
  start: (nodeArgs: string[]) => Promise<Child>,
  load?: (url: string) => Promise<unknown>,
): Promise<ProfileSummary> {
  // One directory per profile: V8 writes a profile per thread (tsx adds a loader thread).
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const server = await start(['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  let window: { fromUs: number; toUs: number } | undefined;
  try {
    if (load) {
      const fromUs = monotonicUs();
      await load(server.url);
      window = { fromUs, toUs: monotonicUs() };
    }
  } finally {
    await server.stop();
  }
  const busy = (p: ProfileSummary) => p.totalMs * (1 - p.idleShare);
  const summary = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => summarizeProfile(join(dir, f), root, window)).sort((a, b) => busy(b) - busy(a))[0];
  if (!summary) throw new Error('the server wrote no .cpuprofile');
  return summary;
}

export interface ProfileSettings {
  root: string;
  command: ServerCommand;
  secret: string;
  dir: string;
  /** the DATABASE_URL to profile an engine on: a fresh copy of the full-scale SQLite data, PostgreSQL's full-scale database */
  database: (engine: Engine) => string | undefined;
  /** the company whose token the requests carry (its MCP budget is raised for a tool call's profile) */
  hotCompanyId: string;
  requests: Map<string, OpRequest>;
  connections: number;
  duration: number;
  max: number;
  log: (line: string) => void;
}

/**
 * One CPU profile per engine and operation (its HTTP request, or its MCP tool call), or
 * start-up, behind a missed target: the full-scale server started afresh under
 * `node --cpu-prof`, loaded as in the measurement, then stopped gracefully so V8 writes the
 * profile, which is then summarised. On PostgreSQL part of the work is the database server's,
 * which no profile of the API shows.
 */
export async function profileMisses(checks: TargetCheck[], s: ProfileSettings): Promise<ProfileReport[]> {
  const wanted = new Map<string, { engine: Engine; subject: string; targets: string[] }>();
  for (const check of checks.filter((c) => !c.met && c.profile)) {
    const key = `${check.engine} ${check.profile}`;
    const entry = wanted.get(key) ?? { engine: check.engine, subject: check.profile!, targets: [] };
    entry.targets.push(`${check.target} (${check.subject}: ${check.value})`);
    wanted.set(key, entry);
  }
  const reports: ProfileReport[] = [];
  for (const { engine, subject, targets } of [...wanted.values()].slice(0, s.max)) {
    const mcp = subject.startsWith('mcp:');
    const op = OPERATIONS.find((o) => o.id === (mcp ? subject.slice(4) : subject));
    const label = op ? `${op.label}${mcp ? ' through MCP' : ''} under load` : 'Start-up (spawn to first answer)';
    const report: ProfileReport = { engine, subject: label, targets };
    try {
      const database = s.database(engine);
      if (!database) throw new Error(`no ${ENGINE_LABEL[engine]} database to profile on`);
      if (mcp) await raiseBudget(database, s.hotCompanyId);
      const http = op ? s.requests.get(op.id)! : undefined;
      report.summary = await profileServer(
        s.root,
        join(s.dir, `${engine}-${subject.replace(':', '-')}`),
        (nodeArgs) => startApi(s.root, s.command, database, s.secret, { nodeArgs }),
        op && http
          ? (url) => runLoad(url, mcp ? mcpProfileRequest(op.id, http) : http, { connections: s.connections, duration: s.duration, expectStatus: mcp ? 200 : op.status, seed: `profile:${subject}` })
          : undefined,
      );
      s.log(`profiled ${subject} on ${ENGINE_LABEL[engine]}: top ${report.summary.functions.slice(0, 3).map((f) => `${f.name} ${(f.share * 100).toFixed(0)}%`).join(', ')}`);
    } catch (err) {
      report.error = (err as Error).message.split('\n')[0];
      s.log(`profile of ${subject} on ${ENGINE_LABEL[engine]} failed: ${report.error}`);
    }
    reports.push(report);
  }
  return reports;
}
