-- The last step of a reschedule: see prepare_move.sql.
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
    DELETE FROM appointments WHERE id = old_appointment AND NOT EXISTS (SELECT 1 FROM participations WHERE appointment_id = old_appointment);
    IF NOT FOUND THEN
      -- kept for the participations that hold no place in it (released by the trigger): no longer archived
      UPDATE appointments SET archived = false WHERE id = old_appointment;
    END IF;
  END IF;
  RETURN old_appointment;
END $$;
