/** What the benchmarks read from /proc: a process's CPU time, and PostgreSQL's (all its processes). */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU milliseconds (user + system) a process has used, all its threads. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // clock ticks of 1/100 s
}

/** CPU milliseconds of each PostgreSQL process on the machine (the benchmark's cluster is the only one running), by pid. */
export function postgresCpuByPid(): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/comm`, 'utf8').trim() === 'postgres') byPid.set(Number(d), cpuMs(Number(d)));
    } catch {
      // gone meanwhile
    }
  }
  return byPid;
}

/**
 * PostgreSQL's CPU milliseconds since `before` (a postgresCpuByPid()): a backend that started meanwhile
 * counts whole, one that ended (a pool closing an idle connection) is left out rather than subtracted.
 */
export function postgresCpuSince(before: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of postgresCpuByPid()) total += ms - (before.get(pid) ?? 0);
  return total;
}
