-- Migration 012: a listing change names the appointment it touched and the transaction that made it.
--
-- A1 used to read a resource's whole listing data again after any change: in a rush, where every
-- booking changes the listing, that was all appointments with their live counts hundreds of times a
-- second. Now a reader that has the data of an earlier read asks which changes became visible since
-- that read's snapshot (`NOT pg_visible_in_snapshot(xid, snapshot)`, exact whatever order
-- transactions commit in) and, when every one of them names an appointment, reads only those
-- appointments (booking/bookablesLoader.ts). A change without an appointment (timeslots, products,
-- the resource, its provider or contact) makes the reader read everything, as before.
--
-- Rows written before this migration keep no appointment and the migration's transaction id, so a
-- reader holding data from before it reads everything once.
ALTER TABLE listing_changes
  ADD COLUMN appointment_id uuid,
  ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id();

CREATE OR REPLACE FUNCTION bump_listing_change(rid uuid, aid uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF rid IS NOT NULL THEN
    INSERT INTO listing_changes (resource_id, appointment_id) VALUES (rid, aid);
  END IF;
END $$;

CREATE OR REPLACE FUNCTION listing_touch_appointment() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM bump_listing_change(OLD.resource_id, OLD.id); END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.resource_id IS DISTINCT FROM OLD.resource_id) THEN
    PERFORM bump_listing_change(NEW.resource_id, NEW.id);
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS appointments_listing ON appointments;
CREATE TRIGGER appointments_listing AFTER INSERT OR UPDATE OR DELETE ON appointments FOR EACH ROW EXECUTE FUNCTION listing_touch_appointment();

CREATE OR REPLACE FUNCTION listing_touch_participation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM bump_listing_change(a.resource_id, a.id) FROM appointments a WHERE a.id = OLD.appointment_id;
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.appointment_id IS DISTINCT FROM OLD.appointment_id) THEN
    PERFORM bump_listing_change(a.resource_id, a.id) FROM appointments a WHERE a.id = NEW.appointment_id;
  END IF;
  RETURN NULL;
END $$;

-- Compaction folds a reader's changes into the totals, where they no longer name an appointment: a
-- reader whose changes since its snapshot were folded meanwhile must read everything. In a rush
-- that was every compaction run (every 2 s), for every listing being read. Compaction now folds
-- only rows its caller's earlier snapshot saw committed (the compactor passes the snapshot of its
-- previous run), so a listing read more often than the compactor runs keeps reading only changes.
DROP FUNCTION compact_listing_changes(integer);
CREATE FUNCTION compact_listing_changes(batch integer, committed_before pg_snapshot DEFAULT NULL) RETURNS integer LANGUAGE plpgsql AS $$
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
