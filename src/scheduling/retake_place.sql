-- RESERVED -> BOOKED of a hold that has expired takes its place anew (D10): the check and the
--    change under the appointment's lock in one statement, like claim_place. No row comes back when
--    the participation is no longer RESERVED (a concurrent change won).
CREATE OR REPLACE FUNCTION retake_place(p_participation uuid, p_now timestamptz, p_state text, p_message text)
RETURNS SETOF participations LANGUAGE plpgsql AS $$
DECLARE
  a appointments;
  live integer;
BEGIN
  SELECT x.* INTO a FROM appointments x JOIN participations p ON p.appointment_id = x.id WHERE p.id = p_participation FOR UPDATE OF x;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'BKGON', MESSAGE = 'the participation no longer exists';
  END IF;
  IF a.state <> 'ACTIVE' OR a.archived THEN
    RAISE EXCEPTION USING ERRCODE = 'BKCLO', MESSAGE = format('appointment %s is %s', a.reference, CASE WHEN a.state <> 'ACTIVE' THEN 'cancelled' ELSE 'archived' END);
  END IF;
  SELECT count(*)::int INTO live FROM participations x
   WHERE x.appointment_id = a.id AND x.id <> p_participation
     AND participation_is_live(x.state, x.hold_until, p_now);
  IF live >= a.capacity THEN
    RAISE EXCEPTION USING ERRCODE = 'BKFUL', MESSAGE = format('appointment %s has no free place (capacity %s)', a.reference, a.capacity);
  END IF;
  RETURN QUERY UPDATE participations SET state = p_state, hold_until = NULL, message = COALESCE(p_message, message), updated_at = now()
    WHERE id = p_participation AND state = 'RESERVED' RETURNING *;
END $$;
