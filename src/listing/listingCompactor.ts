/**
 * Folds the rows of listing_changes into listing_change_totals (migration 006), so reading a
 * resource's listing version counts only the changes since the last run. Versions never move:
 * compaction only moves counted changes from one table to the other, in one statement.
 */
import { runEvery, type Periodic } from '../periodic.js';
import type { Queryable } from '../storage/db.js';

const BATCH = 20_000;

/**
 * Compacts until fewer than a batch of changes were left (or `stopping()` says so); returns how many
 * were folded. With `committedBefore` (a snapshot, pg_snapshot as text), only the changes that
 * snapshot saw committed: newer ones still name their appointment for the listings read since.
 */
export async function compactListingChanges(
  db: Queryable,
  stopping: () => boolean = () => false,
  committedBefore: string | null = null,
): Promise<number> {
  let total = 0;
  for (;;) {
    const [{ n }] = await db.query<{ n: number }>('SELECT compact_listing_changes($1, $2::pg_snapshot) AS n', [
      BATCH,
      committedBefore,
    ]);
    total += n;
    if (n < BATCH || stopping()) return total;
  }
}

/**
 * Runs every `intervalMs` (LISTING_COMPACT_MS), folding the changes committed before its previous
 * run: a listing read more often than that keeps reading only its changes (compact_listing_changes.sql). One
 * instance at a time compacts: the function takes an advisory lock or returns.
 */
export function startListingCompactor(
  db: Queryable,
  log: { error(obj: unknown, msg: string): void },
  intervalMs: number,
): Periodic {
  let previous: string | null = null;
  return runEvery(
    intervalMs,
    async (stopping) => {
      const [{ snapshot }] = await db.query<{ snapshot: string }>('SELECT pg_current_snapshot()::text AS snapshot');
      if (previous !== null) await compactListingChanges(db, stopping, previous);
      previous = snapshot;
    },
    (err) => log.error({ err }, 'listing change compaction failed'),
  );
}
