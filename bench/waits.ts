/**
 * What the bench database's busy backends wait on: pg_stat_activity sampled every 100 ms on a
 * connection of its own. A backend is busy while it runs a statement (state 'active'), waiting or
 * not; the shares are of all busy backend samples: on a heavyweight lock (wait_event_type 'Lock',
 * among them advisory locks) and on the WAL (WALSync, WALWrite, WALInsert ...).
 */
import pg from 'pg';

/** Sums over the samples: busy backends, and those among them waiting on a lock, an advisory lock, the WAL. */
export interface WaitCounts {
  samples: number;
  busy: number;
  lock: number;
  advisory: number;
  wal: number;
  /** busy backend samples by wait event (`type:event`; `running` when not waiting) */
  events: Record<string, number>;
}

export const noWaits = (): WaitCounts => ({ samples: 0, busy: 0, lock: 0, advisory: 0, wal: 0, events: {} });

export function addWaits(a: WaitCounts, b: WaitCounts): WaitCounts {
  const events = { ...a.events };
  for (const [k, n] of Object.entries(b.events)) events[k] = (events[k] ?? 0) + n;
  return {
    samples: a.samples + b.samples,
    busy: a.busy + b.busy,
    lock: a.lock + b.lock,
    advisory: a.advisory + b.advisory,
    wal: a.wal + b.wal,
    events,
  };
}

/** Shares of the busy backend samples (0..1), and busy backends per sample on average. */
export function waitShares(w: WaitCounts) {
  const share = (n: number) => (w.busy ? n / w.busy : 0);
  const top = Object.entries(w.events)
    .sort((x, y) => y[1] - x[1])
    .slice(0, 5)
    .map(([k, n]) => [k, share(n)] as const);
  return {
    samples: w.samples,
    busyMean: w.samples ? w.busy / w.samples : 0,
    lock: share(w.lock),
    advisory: share(w.advisory),
    wal: share(w.wal),
    top,
  };
}

const SAMPLE = `
  SELECT COALESCE(wait_event_type || ':' || wait_event, 'running') AS event, count(*)::int AS n
    FROM pg_stat_activity
   WHERE datname = current_database() AND backend_type = 'client backend' AND state = 'active'
     AND pid <> pg_backend_pid()
   GROUP BY 1`;

/** Starts sampling the database at `url`; the returned function stops and gives the sums. */
export async function sampleWaits(url: string, everyMs = 100): Promise<() => Promise<WaitCounts>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const sum = noWaits();
  let running = true;
  const loop = (async () => {
    while (running) {
      const next = Date.now() + everyMs;
      const { rows } = await client.query<{ event: string; n: number }>(SAMPLE);
      const at = noWaits();
      at.samples = 1;
      for (const { event, n } of rows) {
        at.busy += n;
        at.events[event] = n;
        if (event.startsWith('Lock:')) at.lock += n;
        if (event === 'Lock:advisory') at.advisory += n;
        if (/^\w+:WAL/.test(event)) at.wal += n;
      }
      Object.assign(sum, addWaits(sum, at));
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
  })();
  return async () => {
    running = false;
    await loop;
    await client.end();
    return sum;
  };
}
