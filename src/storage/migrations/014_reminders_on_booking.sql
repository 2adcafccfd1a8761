-- Migration 014: a participation that becomes BOOKED gets its reminders without a look for old ones.
-- Reminder rows exist only while their participation is BOOKED (migration 010: written when it
-- becomes BOOKED or moves while BOOKED, deleted when it stops being BOOKED, cascaded with it), so a
-- participation inserted BOOKED, or turning BOOKED from another state, has none. Every booking ran
-- plan_reminders' DELETE all the same; its plan, cached by a session while the table was small, is
-- a sequential scan that each booking then paid in full (in the bench's rush, 1,543 scans reading
-- 1.1 million rows in 15 s). plan_reminders still replaces the rows of a participation that moves
-- while BOOKED, or whose provider's offsets change.
--
-- reminder_offsets, listing_version (every A1 read) and public_live_holds (every A2) become
-- PL/pgSQL, with the same bodies: SQL functions like these (subqueries, or more than one statement)
-- are never inlined, and PostgreSQL planned their bodies anew at every call, as it keeps no plans of
-- SQL functions from one statement to the next; PL/pgSQL keeps them for the session. Each statement
-- of a VOLATILE PL/pgSQL function takes a new snapshot, as in the SQL function: the count of
-- public_live_holds sees every hold committed before its advisory lock was granted.

CREATE OR REPLACE FUNCTION reminder_offsets(p_provider uuid) RETURNS integer[] LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN COALESCE((SELECT reminder_minutes_before FROM providers WHERE id = p_provider),
                  (SELECT value::integer[] FROM settings WHERE key = 'reminder_minutes_before'),
                  ARRAY[1440]);
END $$;

-- The reminders of one BOOKED participation, inserted (a row already there for an offset takes the new time).
CREATE OR REPLACE FUNCTION insert_reminders(p_participation uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO reminders (participation_id, minutes_before, due_at)
  SELECT p.id, m, a.start_at - make_interval(mins => m)
    FROM participations p
    JOIN appointments a ON a.id = p.appointment_id
   CROSS JOIN LATERAL unnest(reminder_offsets(p.provider_id)) AS m
   WHERE p.id = p_participation AND p.state = 'BOOKED' AND a.state = 'ACTIVE' AND NOT a.archived
     AND a.start_at - make_interval(mins => m) > now()
  ON CONFLICT (participation_id, minutes_before) DO UPDATE SET due_at = EXCLUDED.due_at;
END $$;

CREATE OR REPLACE FUNCTION plan_reminders(p_participation uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM reminders WHERE participation_id = p_participation;
  PERFORM insert_reminders(p_participation);
END $$;

CREATE OR REPLACE FUNCTION participation_reminders() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.state = 'BOOKED' AND (TG_OP = 'INSERT' OR OLD.state <> 'BOOKED') THEN
    PERFORM insert_reminders(NEW.id);
  ELSIF NEW.state = 'BOOKED' AND OLD.appointment_id <> NEW.appointment_id THEN
    PERFORM plan_reminders(NEW.id);
  ELSIF TG_OP = 'UPDATE' AND OLD.state = 'BOOKED' AND NEW.state <> 'BOOKED' THEN
    DELETE FROM reminders WHERE participation_id = NEW.id;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION listing_version(rid uuid) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN COALESCE((SELECT total FROM listing_change_totals WHERE resource_id = rid), 0)
       + (SELECT count(*) FROM listing_changes WHERE resource_id = rid);
END $$;

CREATE OR REPLACE FUNCTION public_live_holds(ip text, at timestamptz) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(727005, hashtext($1));
  RETURN (SELECT count(*)::int FROM participations WHERE state = 'RESERVED' AND hold_until > $2 AND client_ip = $1);
END $$;
