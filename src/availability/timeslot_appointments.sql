-- The appointments that meet a timeslot: those of its resource whose time overlaps it, and those
-- booked from it (timeslot_id), whatever their state. A rule change locks them, asks whether one
-- holds its date (timeslot_is_taken.sql) and releases the emptied ones (availability/republish.ts).
CREATE OR REPLACE FUNCTION timeslot_appointments(p_timeslot uuid, p_resource uuid, p_from timestamptz, p_until timestamptz)
RETURNS SETOF uuid LANGUAGE sql STABLE AS $$
  SELECT a.id FROM appointments a WHERE a.resource_id = p_resource AND a.end_at > p_from AND a.start_at < p_until
  UNION
  SELECT a.id FROM appointments a WHERE a.timeslot_id = p_timeslot
$$;
