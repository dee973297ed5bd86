import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

// Linux /proc readers: a process's peak memory and CPU time, and the port it listens on (the
// server is started with PORT=0 and LOG_LEVEL=warn, so it never says which port it got).

/** VmHWM (peak RSS) of a process, in kB; undefined once it is gone. */
export function peakRssOf(pid: number): number | undefined {
  try {
    return Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return undefined;
  }
}

/** The TCP port a process listens on (IPv4 or IPv6), found through its sockets' inodes; undefined if none yet. */
export function listeningPort(pid: number): number | undefined {
  let inodes: Set<string>;
  try {
    inodes = new Set(
      readdirSync(`/proc/${pid}/fd`)
        .map((fd) => { try { return readlinkSync(`/proc/${pid}/fd/${fd}`); } catch { return ''; } })
        .map((link) => /^socket:\[(\d+)\]$/.exec(link)?.[1])
        .filter((inode): inode is string => inode !== undefined),
    );
  } catch {
    return undefined;
  }
  for (const table of ['tcp', 'tcp6']) {
    let text = '';
    try { text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8'); } catch { continue; }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // cols: sl local rem st tx:rx tr:when retrnsmt uid timeout inode; st 0A = LISTEN
      if (cols.length > 9 && cols[3] === '0A' && inodes.has(cols[9])) return parseInt(cols[1].split(':')[1], 16);
    }
  }
  return undefined;
}

const CLOCK_TICKS = (() => {
  const ticks = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim());
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
})();

/** The CPU time a process has used so far (user + system), in ms; undefined once it is gone. */
export function cpuMsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
