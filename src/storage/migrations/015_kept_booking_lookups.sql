-- Migration 015: a reservation checks the lookup it was decided on, in its claim's own statement.
--
-- A reservation (A2) read its resource, products and slot in one statement and took its place in a
-- second one. An instance now keeps that lookup per (reference, slot) and sends only the claim
-- (booking/bookingLookups.ts); the claim checks, before claim_place takes anything, that nothing the
-- lookup read has changed since. Only a change that names no appointment can change a lookup's
-- resource, products, provider or timeslots (the listing triggers of migrations 004 and 012), so a
-- resource's configuration version counts those changes alone: the rows of listing_changes without
-- an appointment, plus what compaction has folded of them. A booking's own changes all name their
-- appointment and leave the version where it is.

ALTER TABLE listing_change_totals ADD COLUMN config_total bigint NOT NULL DEFAULT 0;
CREATE INDEX listing_changes_config_idx ON listing_changes (resource_id) WHERE appointment_id IS NULL;

CREATE OR REPLACE FUNCTION listing_config_version(rid uuid) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN COALESCE((SELECT config_total FROM listing_change_totals WHERE resource_id = rid), 0)
       + (SELECT count(*) FROM listing_changes WHERE resource_id = rid AND appointment_id IS NULL);
END $$;

-- As in migration 012, with the configuration changes folded into their own total too.
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
         RETURNING resource_id, appointment_id),
       counted AS (SELECT resource_id, count(*) AS n, count(*) FILTER (WHERE appointment_id IS NULL) AS config_n FROM gone GROUP BY resource_id),
       folded AS (
         INSERT INTO listing_change_totals AS t (resource_id, total, config_total) SELECT resource_id, n, config_n FROM counted
         ON CONFLICT (resource_id) DO UPDATE SET total = t.total + EXCLUDED.total, config_total = t.config_total + EXCLUDED.config_total)
  SELECT COALESCE(sum(n), 0)::int INTO moved FROM counted;
  RETURN moved;
END $$;

-- The check of a kept lookup (p_lookup: resource, config_version, short_ref, and the appointment the
-- slot uuid named with its times and product), raising BKSTL when the lookup no longer holds: the
-- resource's configuration changed, a short reference no longer names exactly one resource, or the
-- named appointment moved, changed its product or is gone. Returns p_now, so that it can be an
-- argument of claim_place and run before it (each statement here takes a snapshot of its own).
CREATE OR REPLACE FUNCTION checked_lookup(p_lookup jsonb, p_now timestamptz) RETURNS timestamptz LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  rid uuid := (p_lookup->>'resource')::uuid;
  appt uuid := (p_lookup->>'appointment')::uuid;
BEGIN
  IF p_lookup IS NULL THEN
    RETURN p_now;
  END IF;
  IF listing_config_version(rid) <> (p_lookup->>'config_version')::bigint
     OR (p_lookup->>'short_ref' IS NOT NULL
         AND (SELECT count(*) FROM (SELECT 1 FROM resources WHERE reference = p_lookup->>'short_ref' LIMIT 2) x) <> 1)
     OR (appt IS NOT NULL AND NOT EXISTS (
           SELECT 1 FROM appointments
            WHERE id = appt AND resource_id = rid AND start_at = (p_lookup->>'start_at')::timestamptz
              AND end_at = (p_lookup->>'end_at')::timestamptz AND product_id IS NOT DISTINCT FROM (p_lookup->>'product_id')::uuid)) THEN
    RAISE EXCEPTION USING ERRCODE = 'BKSTL', MESSAGE = 'the lookup this booking was decided on is out of date';
  END IF;
  RETURN p_now;
END $$;
