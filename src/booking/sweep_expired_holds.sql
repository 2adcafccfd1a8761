-- The hold sweeper (booking/holdSweeper.ts) in one statement: expired holds go, each reported
-- (participation.canceled, source "expiry", RESERVED -> CANCELED as the transition table has it)
-- just before it is deleted, and with them the public flow's appointments they leave empty: deleted
-- when no participation is left at all, released (release_emptied_appointment) when only ones that
-- hold no place are. Each such appointment is locked before the emptiness check, which runs as a
-- statement of its own (a fresh snapshot): a reservation joining it right now either committed
-- first (its participation is seen, the appointment stays) or waits and then finds the appointment
-- gone or cancelled and creates the slot's appointment anew (claim_place).
CREATE OR REPLACE FUNCTION sweep_expired_holds(p_now timestamptz, batch integer)
RETURNS TABLE (holds integer, appointments integer) LANGUAGE plpgsql AS $$
DECLARE
  expired uuid[];
  emptied uuid[];
  aid uuid;
  removed integer := 0;
  n integer;
BEGIN
  SELECT array_agg(id) INTO expired FROM (
    SELECT id FROM participations WHERE state = 'RESERVED' AND hold_until <= p_now
     ORDER BY hold_until LIMIT batch FOR UPDATE SKIP LOCKED) x;
  PERFORM webhook_participation_event('participation.canceled', e, 'expiry', 'RESERVED', NULL, 'CANCELED')
     FROM unnest(COALESCE(expired, '{}')) e;
  WITH gone AS (DELETE FROM participations WHERE id = ANY (COALESCE(expired, '{}')) RETURNING appointment_id)
  SELECT array_agg(DISTINCT appointment_id), count(*) INTO emptied, n FROM gone;
  FOREACH aid IN ARRAY COALESCE(emptied, '{}') LOOP
    PERFORM 1 FROM appointments WHERE id = aid AND created_by_public_flow FOR UPDATE;
    IF FOUND THEN
      DELETE FROM appointments WHERE id = aid AND NOT EXISTS (SELECT 1 FROM participations WHERE appointment_id = aid);
      IF FOUND OR release_emptied_appointment(aid, p_now) THEN
        removed := removed + 1;
      END IF;
    END IF;
  END LOOP;
  RETURN QUERY SELECT COALESCE(n, 0)::int, removed;
END $$;
