/**
 * CPU time spent by the parts of a bench run (Linux /proc): the service process, every PostgreSQL
 * process, and this bench process (the load generator). Per booking, these figures do not depend
 * on what else runs on a shared machine, unlike requests per second.
 */
import { readdirSync, readFileSync } from 'node:fs';

export const TICK_MS = 10; // USER_HZ is 100 on Linux

/** A process's CPU ticks; with `reaped`, also those of its children that exited and were waited for. */
export function processTicks(pid: number | string, reaped = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const own = Number(fields[11]) + Number(fields[12]); // utime + stime
    return reaped ? own + Number(fields[13]) + Number(fields[14]) : own; // + cutime + cstime
  } catch {
    return 0; // exited meanwhile
  }
}

/**
 * Every PostgreSQL process's ticks, including those of backends that exited (the postmaster reaps
 * them, so their time moves into its cutime and cstime): a backend closed during a run would
 * otherwise take its ticks out of the sum, which could then shrink.
 */
function postgresTicks(): number {
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += processTicks(pid, true);
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

export interface CpuSpent {
  serviceMs: number;
  postgresMs: number;
  benchMs: number;
}

/** Starts counting; the returned function gives the CPU milliseconds spent since. */
export function cpuMeter(servicePid: number): () => CpuSpent {
  const service = processTicks(servicePid);
  const postgres = postgresTicks();
  const bench = process.cpuUsage();
  return () => {
    const b = process.cpuUsage(bench);
    return {
      serviceMs: (processTicks(servicePid) - service) * TICK_MS,
      postgresMs: (postgresTicks() - postgres) * TICK_MS,
      benchMs: (b.user + b.system) / 1000,
    };
  };
}
