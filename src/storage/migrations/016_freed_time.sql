-- Migration 016: freed time, and one schema whatever way a database came here.
--
-- From this migration on, migrations hold the schema only: every SQL function and trigger has its
-- one current definition in a .sql file beside the TypeScript that calls it, applied after the
-- migrations whenever it changes (storage/migrate.ts). Number 015 is not used: a migration
-- 015_kept_booking_lookups was on main for a while and was reverted; databases may have applied it.
--
-- 1. Appointments the public flow created that no participation holds a place in any more (their
--    bookings were cancelled before a cancellation freed the time) are released as they are now
--    (scheduling/release_emptied_appointment.sql): they block nothing from here on.
UPDATE appointments a SET state = 'CANCELLED', updated_at = now()
 WHERE a.created_by_public_flow AND a.state = 'ACTIVE' AND NOT a.archived
   AND EXISTS (SELECT 1 FROM participations x WHERE x.appointment_id = a.id)
   AND NOT EXISTS (SELECT 1 FROM participations x WHERE x.appointment_id = a.id AND x.state IN ('RESERVED', 'REQUESTED', 'BOOKED'));

-- 2. Databases migrated with the first form of migration 011 have participations_appointment_idx
--    partial (live states only); the current form covers every state, so the feed and appointment
--    deletes read it too. Rebuilt only where it differs.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_indexes WHERE indexname = 'participations_appointment_idx' AND indexdef LIKE '% WHERE %') THEN
    DROP INDEX participations_appointment_idx;
    CREATE INDEX participations_appointment_idx ON participations (appointment_id) INCLUDE (state, hold_until);
  END IF;
END $$;

-- 3. What the reverted migration 015_kept_booking_lookups left where it was applied: an index every
--    listing change paid for, a column and two functions nothing uses.
DROP INDEX IF EXISTS listing_changes_config_idx;
ALTER TABLE listing_change_totals DROP COLUMN IF EXISTS config_total;
DROP FUNCTION IF EXISTS checked_lookup(jsonb, timestamptz);
DROP FUNCTION IF EXISTS listing_config_version(uuid);
