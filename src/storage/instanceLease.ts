/**
 * Whether this service instance is the only one writing to its database, known for a short lease.
 *
 * Each instance on PostgreSQL keeps a row in service_instances (migration 021), renewed every
 * RENEW_MS. A renewal that finds no other live row, and no connection to the database but this
 * instance's own (pg_stat_activity, by application_name: an older version, a script, psql), grants
 * this instance the lease for LEASE_MS from before the renewal was sent. An instance joining
 * registers its row first and, if it finds another live one, waits JOIN_WAIT_MS before it
 * migrates, serves or runs a job: by then every lease granted by a renewal that could have missed
 * its row has run out, and every later renewal sees it. So while `held()`, no change was committed
 * by another instance, and a cached answer whose versions this instance read may be served without
 * asking again (listing/upcomingBookables.ts), as long as this instance sent nothing that may write
 * since (WriteWatch). A lease that ran out and is held again counts as such a write: another
 * instance may have come and gone meanwhile.
 *
 * PGlite is one process's own database (its directory is locked): the lease is held for good.
 * A lease lost (a renewal failed or was late, another instance runs) costs a check per read, never
 * freshness. A change by a process that does not register, committed within a lease of its
 * connecting, may be missing from cached answers for up to that lease (docs/decisions.md, "A sole
 * instance answers cached listings without a read").
 */
import { instanceApplicationName, sqlState, type Db } from './db.js';

export const LEASE_MS = 1_000;
const RENEW_MS = 250;
/** a renewal's row outlives its lease, so a joining instance sees any instance whose lease may still run */
const ROW_TTL_MS = 3 * LEASE_MS;
/** beyond LEASE_MS, for two processes' clocks measuring the same second a little differently */
export const JOIN_WAIT_MS = 1.5 * LEASE_MS;

const RENEW_SQL = `
  WITH gone AS (DELETE FROM service_instances WHERE expires_at < now() - interval '1 minute'),
       mine AS (INSERT INTO service_instances (id, expires_at) VALUES ($1, now() + $2 * interval '1 millisecond')
                ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at)
  SELECT EXISTS (SELECT 1 FROM service_instances WHERE id <> $1 AND expires_at > now())
         OR EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name IS DISTINCT FROM $3
                       -- another role's sessions show no backend_type to a role without pg_read_all_stats
                       AND COALESCE(backend_type, 'client backend') = 'client backend') AS others`;

export interface InstanceLease {
  /** true while no other instance can have committed a change since this instance last looked */
  held(): boolean;
  /** Registers this instance, waiting when another runs; again after migrations (the table may be new). Idempotent. */
  join(): Promise<void>;
  /** Stops renewing and removes this instance's row: the others may hold the lease at their next renewal. Idempotent. */
  leave(): Promise<void>;
}

/** The lease of the instance `instanceId` (InstanceDbs), renewed on `db`, one of its handles. */
export function instanceLease(db: Db, instanceId: string, onError: (err: unknown) => void): InstanceLease {
  return db.kind === 'pglite' ? { held: () => true, join: async () => undefined, leave: async () => undefined } : new RenewedLease(db, instanceId, onError);
}

class RenewedLease implements InstanceLease {
  /** performance.now() until which the lease is held */
  private heldUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private joined = false;
  private stopped = false;
  private failing = false;
  private renewing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly id: string,
    private readonly onError: (err: unknown) => void,
  ) {}

  held(): boolean {
    return performance.now() < this.heldUntil;
  }

  async join(): Promise<void> {
    if (this.joined) return;
    let others: boolean;
    try {
      others = await this.renew();
    } catch (err) {
      if (sqlState(err) === '42P01') return; // no table yet: no instance can hold a lease; joined after migrating
      throw err;
    }
    this.joined = true;
    if (others) await new Promise((resolve) => setTimeout(resolve, JOIN_WAIT_MS));
    this.schedule();
  }

  async leave(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.heldUntil = 0;
    clearTimeout(this.timer);
    await this.renewing;
    if (this.joined) await this.db.unwatched.query('DELETE FROM service_instances WHERE id = $1', [this.id]).catch(this.onError);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.renewing = this.renew()
        .then(() => (this.failing = false))
        .catch((err: unknown) => {
          if (!this.failing) this.onError(err); // once per outage, not every RENEW_MS
          this.failing = true;
        })
        .finally(() => this.schedule());
    }, RENEW_MS);
    this.timer.unref();
  }

  /** Renews this instance's row; true when another instance's is live. */
  private async renew(): Promise<boolean> {
    const sent = performance.now();
    const [{ others }] = await this.db.unwatched.query<{ others: boolean }>(RENEW_SQL, [this.id, ROW_TTL_MS, instanceApplicationName(this.id)]);
    if (others || this.stopped) this.heldUntil = 0;
    else {
      // A lease that had run out when this renewal was sent left a gap in which another instance
      // may have committed: what was read before it cannot be trusted, as after a write.
      if (sent >= this.heldUntil) this.db.writes.mayHaveChanged();
      this.heldUntil = sent + LEASE_MS;
    }
    return others;
  }
}
