-- The reminders of one BOOKED participation, inserted (a row already there for an offset takes the new time).
CREATE OR REPLACE FUNCTION insert_reminders(p_participation uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO reminders (participation_id, minutes_before, due_at)
  SELECT p.id, m, a.start_at - make_interval(mins => m)
    FROM participations p
    JOIN appointments a ON a.id = p.appointment_id
   CROSS JOIN LATERAL unnest(reminder_offsets(p.provider_id)) AS m
   WHERE p.id = p_participation AND p.state = 'BOOKED' AND appointment_is_current(a.state, a.archived)
     AND a.start_at - make_interval(mins => m) > now()
  ON CONFLICT (participation_id, minutes_before) DO UPDATE SET due_at = EXCLUDED.due_at;
END $$;
