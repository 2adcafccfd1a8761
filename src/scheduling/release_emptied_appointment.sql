-- Freed time (DESIGN 7.9): an appointment the public flow created blocks nothing once none of its
-- participations is live. It becomes CANCELLED, so the exclusion constraint appointments_no_overlap
-- and A1 pass over it, its time and its neighbours' (buffers included) are free again, and it
-- leaves the feed. Appointments the partner created stay as they are.
--
-- The appointment is locked first and checked in a statement of its own (a fresh snapshot): a
-- reservation joining it right now either committed first (it is seen: the appointment stays) or
-- waits for this transaction and then finds it cancelled, and claim_place creates the slot's
-- appointment anew. Holds count as live until p_at: the trigger below, which cannot know the
-- caller's clock, passes -infinity (any hold keeps the appointment); a claim that later meets an
-- appointment holding only expired holds releases it with its own clock (blocking_appointment).
-- Returns whether the appointment was released.
CREATE OR REPLACE FUNCTION release_emptied_appointment(p_appointment uuid, p_at timestamptz) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM appointments WHERE id = p_appointment AND created_by_public_flow AND appointment_is_current(state, archived) FOR UPDATE;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  UPDATE appointments a SET state = 'CANCELLED', updated_at = now()
   WHERE a.id = p_appointment
     AND NOT appointment_takes_time(a.state, a.archived, a.created_by_public_flow,
                                    EXISTS (SELECT 1 FROM participations x
                                             WHERE x.appointment_id = p_appointment AND participation_is_live(x.state, x.hold_until, p_at)));
  RETURN FOUND;
END $$;
