/** What the benchmarks read from /proc: a process's CPU time, and PostgreSQL's (all its processes). */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU milliseconds (user + system) a process has used, all its threads. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // clock ticks of 1/100 s
}

/** A process's parent: for a PostgreSQL backend (`select pg_backend_pid()`), its cluster's postmaster. */
export function parentPid(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/**
 * CPU milliseconds of each PostgreSQL process on the machine, by pid: every cluster's (the benchmark's
 * being the only one running), or with `postmaster` only that cluster's.
 */
export function postgresCpuByPid(postmaster?: number): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (postmaster && Number(d) !== postmaster && parentPid(Number(d)) !== postmaster) continue;
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
export function postgresCpuSince(before: Map<number, number>, postmaster?: number): number {
  let total = 0;
  for (const [pid, ms] of postgresCpuByPid(postmaster)) total += ms - (before.get(pid) ?? 0);
  return total;
}
