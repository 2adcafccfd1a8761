-- Folds change rows into the totals in one statement, so a reader sees either all of a batch as
-- rows or all of it in the totals: the sum never moves. Rows of transactions still running are not
-- visible here and stay for the next run. One instance compacts at a time; others skip the turn.
--
-- A reader's changes that are folded no longer name an appointment, and a reader whose changes since
-- its snapshot were folded must read everything. So only rows its caller's earlier snapshot saw
-- committed are folded (the compactor passes the snapshot of its previous run): a listing read more
-- often than the compactor runs keeps reading only changes.
--
-- Databases migrated between the two forms of migration 012 have the first form's one-argument
-- function; it goes.
DROP FUNCTION IF EXISTS compact_listing_changes(integer);
CREATE OR REPLACE FUNCTION compact_listing_changes(batch integer, committed_before pg_snapshot DEFAULT NULL) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  moved integer;
BEGIN
  IF NOT pg_try_advisory_xact_lock(727006) THEN
    RETURN 0;
  END IF;
  WITH gone AS (
         DELETE FROM listing_changes WHERE ctid = ANY (ARRAY(
           SELECT ctid FROM listing_changes
            WHERE committed_before IS NULL OR pg_visible_in_snapshot(xid, committed_before)
            LIMIT batch))
         RETURNING resource_id),
       counted AS (SELECT resource_id, count(*) AS n FROM gone GROUP BY resource_id),
       folded AS (
         INSERT INTO listing_change_totals AS t (resource_id, total) SELECT resource_id, n FROM counted
         ON CONFLICT (resource_id) DO UPDATE SET total = t.total + EXCLUDED.total)
  SELECT COALESCE(sum(n), 0)::int INTO moved FROM counted;
  RETURN moved;
END $$;
