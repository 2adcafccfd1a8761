-- The appointments that meet a rule's timeslots starting at p_from or later, with the timeslot each
-- meets: those of the timeslot's resource whose time overlaps it, and those booked from it
-- (timeslot_id), whatever their state. One set-based query for all of a rule's timeslots (400 days
-- of them): a rule change locks these appointments, asks which hold their date (those that
-- still take their time: appointment_takes_time.sql) and releases the emptied ones (availability/republish.ts).
CREATE OR REPLACE FUNCTION rule_appointments(p_rule uuid, p_from timestamptz)
RETURNS TABLE (appointment_id uuid, timeslot_id uuid) LANGUAGE sql STABLE AS $$
  WITH slots AS (SELECT t.id, t.resource_id, t.start_at, t.end_at FROM timeslots t
                  WHERE t.rule_id = p_rule AND t.start_at >= p_from)
  SELECT a.id, s.id FROM slots s
    JOIN appointments a ON a.resource_id = s.resource_id AND a.end_at > s.start_at AND a.start_at < s.end_at
  UNION
  SELECT a.id, s.id FROM slots s JOIN appointments a ON a.timeslot_id = s.id
$$;
