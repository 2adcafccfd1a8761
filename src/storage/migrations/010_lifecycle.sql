-- Migration 010: the booking lifecycle for consumers (docs/lifecycle.md).

-- 1. Idempotency keys of A2, A3 and reschedule (IETF httpapi draft). One row per method, path and
--    key: the request's fingerprint (body and query), and once it has finished its answer. While
--    status is NULL the first request is still running; locked_until bounds how long a crashed one
--    blocks its key. Rows are purged after expires_at (24 h).
CREATE TABLE idempotency_keys (
  method       text NOT NULL,
  path         text NOT NULL,
  key          text NOT NULL,
  fingerprint  text NOT NULL,
  status       integer,
  content_type text,
  body         text,
  locked_until timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  PRIMARY KEY (method, path, key)
);
CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at);

-- 2. Booking window per resource: {minNoticeMinutes, maxAdvanceDays, cancelNoticeMinutes}, each
--    null for no limit; NULL: no limits at all. An update bumps the listing version (trigger of 004).
ALTER TABLE resources ADD COLUMN booking_window jsonb;

-- 3. Rescheduling keeps the consumer's calendar entry: the ICS UID of the first booking stays with
--    the participation when it moves to another appointment, and SEQUENCE only grows.
ALTER TABLE participations ADD COLUMN ics_uid text, ADD COLUMN ics_sequence bigint;

-- 4. Reminders. A row per BOOKED participation and offset whose reminder time lies ahead, written
--    by a trigger whenever a participation becomes BOOKED (or moves while BOOKED) and removed when
--    it stops being BOOKED, so every path (public flow, partner API, decision links) is covered. The
--    reminder job claims due rows through the due_at index (FOR UPDATE SKIP LOCKED) and deletes them
--    in the transaction that writes the mail: once per offset, on any number of instances, at a cost
--    that does not depend on how many bookings lie in the future.
ALTER TABLE providers ADD COLUMN reminder_minutes_before integer[];

CREATE TABLE reminders (
  participation_id uuid NOT NULL REFERENCES participations (id) ON DELETE CASCADE,
  minutes_before   integer NOT NULL,
  due_at           timestamptz NOT NULL,
  PRIMARY KEY (participation_id, minutes_before)
);
CREATE INDEX reminders_due_idx ON reminders (due_at);

-- The provider's offsets, else REMINDER_MINUTES_BEFORE (written to settings at start-up), else 1440.
CREATE OR REPLACE FUNCTION reminder_offsets(p_provider uuid) RETURNS integer[] LANGUAGE sql STABLE AS $$
  SELECT COALESCE((SELECT reminder_minutes_before FROM providers WHERE id = p_provider),
                  (SELECT value::integer[] FROM settings WHERE key = 'reminder_minutes_before'),
                  ARRAY[1440])
$$;

-- Plans the reminders of one participation afresh: only while BOOKED in a live appointment, and only
-- those whose time is still ahead (a booking made after its reminder time gets none for that offset).
CREATE OR REPLACE FUNCTION plan_reminders(p_participation uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM reminders WHERE participation_id = p_participation;
  INSERT INTO reminders (participation_id, minutes_before, due_at)
  SELECT p.id, m, a.start_at - make_interval(mins => m)
    FROM participations p
    JOIN appointments a ON a.id = p.appointment_id
   CROSS JOIN LATERAL unnest(reminder_offsets(p.provider_id)) AS m
   WHERE p.id = p_participation AND p.state = 'BOOKED' AND a.state = 'ACTIVE' AND NOT a.archived
     AND a.start_at - make_interval(mins => m) > now()
  ON CONFLICT DO NOTHING;
END $$;

CREATE OR REPLACE FUNCTION participation_reminders() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.state = 'BOOKED' AND (TG_OP = 'INSERT' OR OLD.state <> 'BOOKED' OR OLD.appointment_id <> NEW.appointment_id) THEN
    PERFORM plan_reminders(NEW.id);
  ELSIF TG_OP = 'UPDATE' AND OLD.state = 'BOOKED' AND NEW.state <> 'BOOKED' THEN
    DELETE FROM reminders WHERE participation_id = NEW.id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER participations_reminders AFTER INSERT OR UPDATE OF state, appointment_id ON participations
  FOR EACH ROW EXECUTE FUNCTION participation_reminders();

-- A provider's new list applies to its upcoming bookings too.
CREATE OR REPLACE FUNCTION provider_reminders() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM plan_reminders(p.id) FROM participations p JOIN appointments a ON a.id = p.appointment_id
   WHERE p.provider_id = NEW.id AND p.state = 'BOOKED' AND a.start_at > now();
  RETURN NULL;
END $$;
CREATE TRIGGER providers_reminders AFTER UPDATE OF reminder_minutes_before ON providers
  FOR EACH ROW WHEN (OLD.reminder_minutes_before IS DISTINCT FROM NEW.reminder_minutes_before)
  EXECUTE FUNCTION provider_reminders();

-- REMINDER_MINUTES_BEFORE as this instance was started with; when it differs from the stored value,
-- the upcoming bookings of providers without their own list are planned again.
CREATE OR REPLACE FUNCTION set_default_reminders(p_offsets integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF (SELECT value FROM settings WHERE key = 'reminder_minutes_before') IS NOT DISTINCT FROM p_offsets::text THEN
    RETURN;
  END IF;
  INSERT INTO settings (key, value) VALUES ('reminder_minutes_before', p_offsets::text)
  ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value;
  PERFORM plan_reminders(p.id) FROM participations p
    JOIN appointments a ON a.id = p.appointment_id
    JOIN providers pv ON pv.id = p.provider_id
   WHERE pv.reminder_minutes_before IS NULL AND p.state = 'BOOKED' AND a.start_at > now();
END $$;

-- 5. Rescheduling, in one transaction of three steps:
--    prepare_move: the old appointment stops blocking its range when the moving participation is
--      all it has and the public flow created it (it is archived for now), so a booking can move
--      to a time that overlaps its old one; the appointment's lock is taken first, and the check
--      runs as a statement of its own, so a reservation that joined it meanwhile is seen.
--    claim_place (the kernel) takes the new place with a stand-in participation, under the new
--      appointment's lock.
--    move_participation: the stand-in goes and the participation moves into its place, keeping its
--      id, reference and ICS UID (SEQUENCE raised); an old appointment released by prepare_move is
--      removed, as the hold sweeper removes the empty ones.
--    Any refusal rolls the whole transaction back: the old booking stays as it was.
CREATE OR REPLACE FUNCTION prepare_move(p_participation uuid) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  old_appointment uuid;
BEGIN
  SELECT appointment_id INTO old_appointment FROM participations WHERE id = p_participation;
  PERFORM 1 FROM appointments WHERE id = old_appointment AND created_by_public_flow AND NOT archived FOR UPDATE;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  UPDATE appointments SET archived = true, updated_at = now()
   WHERE id = old_appointment AND NOT EXISTS (SELECT 1 FROM participations x WHERE x.appointment_id = old_appointment AND x.id <> p_participation);
  RETURN FOUND;
END $$;

CREATE OR REPLACE FUNCTION move_participation(p_participation uuid, p_stand_in uuid, p_sequence bigint, p_released boolean)
RETURNS uuid LANGUAGE plpgsql AS $$
DECLARE
  old_appointment uuid;
  new_appointment uuid;
BEGIN
  SELECT appointment_id INTO old_appointment FROM participations WHERE id = p_participation;
  DELETE FROM participations WHERE id = p_stand_in RETURNING appointment_id INTO new_appointment;
  UPDATE participations p
     SET appointment_id = new_appointment,
         ics_uid = COALESCE(p.ics_uid, old_appointment || '.' || p.id || '@booking-service'),
         ics_sequence = p_sequence,
         hold_until = NULL,
         updated_at = now()
   WHERE p.id = p_participation;
  IF p_released THEN
    DELETE FROM appointments WHERE id = old_appointment;
  END IF;
  RETURN old_appointment;
END $$;
