/**
 * What the bench database's busy backends wait on: pg_stat_activity sampled every 100 ms on a
 * connection of its own. A backend is busy while it runs a statement (state 'active'), waiting or
 * not; the shares are of all busy backend samples: on a heavyweight lock (wait_event_type 'Lock',
 * among them advisory locks) and on the WAL (WALSync, WALWrite, WALInsert ...).
 */
import pg from 'pg';

export interface WaitShares {
  samples: number;
  /** busy backends per sample, on average */
  busyMean: number;
  /** shares of the busy backend samples, 0..1 */
  lock: number;
  advisory: number;
  wal: number;
}

const SAMPLE = `
  SELECT count(*)::int AS busy,
         count(*) FILTER (WHERE wait_event_type = 'Lock')::int AS lock,
         count(*) FILTER (WHERE wait_event_type = 'Lock' AND wait_event = 'advisory')::int AS advisory,
         count(*) FILTER (WHERE wait_event LIKE 'WAL%')::int AS wal
    FROM pg_stat_activity
   WHERE datname = current_database() AND backend_type = 'client backend' AND state = 'active' AND pid <> pg_backend_pid()`;

/** Starts sampling the database at `url`; the returned function stops and gives the shares. */
export async function sampleWaits(url: string, everyMs = 100): Promise<() => Promise<WaitShares>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const sum = { samples: 0, busy: 0, lock: 0, advisory: 0, wal: 0 };
  let running = true;
  const loop = (async () => {
    while (running) {
      const next = Date.now() + everyMs;
      const { rows } = await client.query<{ busy: number; lock: number; advisory: number; wal: number }>(SAMPLE);
      sum.samples++;
      sum.busy += rows[0].busy;
      sum.lock += rows[0].lock;
      sum.advisory += rows[0].advisory;
      sum.wal += rows[0].wal;
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
  })();
  return async () => {
    running = false;
    await loop;
    await client.end();
    const share = (n: number) => (sum.busy ? n / sum.busy : 0);
    return { samples: sum.samples, busyMean: sum.samples ? sum.busy / sum.samples : 0, lock: share(sum.lock), advisory: share(sum.advisory), wal: share(sum.wal) };
  };
}
