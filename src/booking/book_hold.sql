-- Turns a live hold into the booking of a customer (consumer_customer, earlier in the same
-- transaction): only the hold's own row is locked, since a live hold already counts against
-- capacity. When the hold is no longer live, or its appointment no longer open, it returns no row
-- and writes nothing (the caller books anew).
-- p_changes: {state, message, locale, channel_key, answers}
DROP FUNCTION IF EXISTS book_hold(uuid, timestamptz, jsonb, jsonb, jsonb);
CREATE OR REPLACE FUNCTION book_hold(p_hold uuid, p_now timestamptz, p_customer uuid, p_changes jsonb)
RETURNS TABLE (participation jsonb, live_after integer) LANGUAGE plpgsql AS $$
DECLARE
  part participations;
BEGIN
  UPDATE participations x SET customer_id = p_customer, state = p_changes->>'state', hold_until = NULL, message = p_changes->>'message',
                              locale = p_changes->>'locale', channel_key = p_changes->>'channel_key',
                              answers = NULLIF(p_changes->'answers', 'null'::jsonb), updated_at = now()
    FROM appointments a
   WHERE x.id = p_hold AND x.state = 'RESERVED' AND participation_is_live(x.state, x.hold_until, p_now) AND a.id = x.appointment_id
     AND appointment_is_current(a.state, a.archived)
  RETURNING x.* INTO part;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  RETURN QUERY SELECT to_jsonb(part),
    (SELECT count(*)::int FROM participations y
      WHERE y.appointment_id = part.appointment_id AND participation_is_live(y.state, y.hold_until, p_now));
END $$;
