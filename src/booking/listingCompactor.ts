/**
 * Folds the rows of listing_changes into listing_change_totals (migration 006), so reading a
 * resource's listing version counts only the changes since the last run. Versions never move:
 * compaction only moves counted changes from one table to the other, in one statement.
 */
import { runEvery, type Periodic } from '../periodic.js';
import type { Queryable } from '../storage/db.js';

const BATCH = 20_000;

/** Compacts until fewer than a batch of changes were left (or `stopping()` says so); returns how many were folded. */
export async function compactListingChanges(db: Queryable, stopping: () => boolean = () => false): Promise<number> {
  let total = 0;
  for (;;) {
    const [{ n }] = await db.query<{ n: number }>('SELECT compact_listing_changes($1) AS n', [BATCH]);
    total += n;
    if (n < BATCH || stopping()) return total;
  }
}

/** Runs every `intervalMs` (LISTING_COMPACT_MS). One instance at a time compacts: the function takes an advisory lock or returns. */
export function startListingCompactor(db: Queryable, log: { error(obj: unknown, msg: string): void }, intervalMs: number): Periodic {
  return runEvery(intervalMs, (stopping) => compactListingChanges(db, stopping), (err) => log.error({ err }, 'listing change compaction failed'));
}
