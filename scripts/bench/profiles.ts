import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runLoad } from './load.js';
import { OPERATIONS, type OpRequest } from './operations.js';
import { monotonicUs, summarizeProfile, type ProfileSummary } from './profile.js';
import type { ProfileReport } from './report.js';
import { startApi, type ServerCommand } from './servers.js';
import type { TargetCheck } from './summary.js';

export interface ProfileSettings {
  root: string;
  command: ServerCommand;
  secret: string;
  dir: string;
  /** the DATABASE_URL of a fresh copy of the full-scale SQLite data set */
  freshDb: () => string;
  requests: Map<string, OpRequest>;
  connections: number;
  duration: number;
  max: number;
  log: (line: string) => void;
}

/**
 * One CPU profile per operation (or start-up) behind a missed target on SQLite: the full-scale server
 * started afresh under `node --cpu-prof`, loaded as in the measurement, then stopped
 * gracefully so V8 writes the profile, which is then summarised.
 */
export async function profileMisses(checks: TargetCheck[], s: ProfileSettings): Promise<ProfileReport[]> {
  const wanted = new Map<string, string[]>();
  // SQLite's misses: the server's own CPU is the whole cost there; on PostgreSQL part of it is another process's.
  for (const check of checks.filter((c) => !c.met && c.engine === 'sqlite')) {
    if (check.profile) wanted.set(check.profile, [...(wanted.get(check.profile) ?? []), `${check.target} (${check.subject}: ${check.value})`]);
  }
  mkdirSync(s.dir, { recursive: true });
  const reports: ProfileReport[] = [];
  for (const [subject, targets] of [...wanted].slice(0, s.max)) {
    const op = OPERATIONS.find((o) => o.id === subject);
    const report: ProfileReport = { subject: op ? `${op.label} under load` : 'Start-up (spawn to first answer)', targets };
    // One directory per subject: V8 writes a profile per thread (tsx adds a loader thread).
    const dir = join(s.dir, subject);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    try {
      const server = await startApi(s.root, s.command, s.freshDb(), s.secret, { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
      let window: { fromUs: number; toUs: number } | undefined;
      try {
        if (op) {
          const fromUs = monotonicUs();
          await runLoad(server.url, s.requests.get(op.id)!, { connections: s.connections, duration: s.duration, expectStatus: op.status, seed: `profile:${op.id}` });
          window = { fromUs, toUs: monotonicUs() };
        }
      } finally {
        await server.stop();
      }
      // The main thread's profile is the busy one.
      const busy = (p: ProfileSummary) => p.totalMs * (1 - p.idleShare);
      report.summary = readdirSync(dir)
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => summarizeProfile(join(dir, f), s.root, window))
        .sort((a, b) => busy(b) - busy(a))[0];
      if (!report.summary) throw new Error('the server wrote no .cpuprofile');
      s.log(`profiled ${subject}: top ${report.summary.functions.slice(0, 3).map((f) => `${f.name} ${(f.share * 100).toFixed(0)}%`).join(', ')}`);
    } catch (err) {
      report.error = (err as Error).message.split('\n')[0];
      s.log(`profile of ${subject} failed: ${report.error}`);
    }
    reports.push(report);
  }
  return reports;
}
