-- Rescheduling (booking/reschedule.ts), in one transaction of three steps:
--    prepare_move: the old appointment stops blocking its range when the moving participation is
--      the only one holding a place in it (a hold counts, expired or not) and the public flow
--      created it (it is archived for now), so a booking can move to a time that overlaps its old
--      one; the appointment's lock is taken first, and the check runs as a statement of its own,
--      so a reservation that joined it meanwhile is seen.
--    claim_place (the kernel) takes the new place with a stand-in participation, under the new
--      appointment's lock.
--    move_participation: the stand-in goes and the participation moves into its place, keeping its
--      id, reference and ICS UID (SEQUENCE raised); the old appointment, left without a live
--      participation, is released (release_emptied_appointment, by the participations_release
--      trigger) and removed when no participation at all is left, as the hold sweeper does.
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
   WHERE id = old_appointment
     AND NOT EXISTS (SELECT 1 FROM participations x
                      WHERE x.appointment_id = old_appointment AND x.id <> p_participation
                        AND participation_is_live(x.state, x.hold_until, '-infinity'));
  RETURN FOUND;
END $$;
