-- Turns a live hold into the booking, with its mails, in one statement: the consumer's customer
-- (consumer_customer), the hold converted (only its own row is locked: a live hold already counts
-- against capacity), and the outbox rows. Mails marked "participant" get the customer's email as
-- recipient and speak the booking's locale, else the customer's language, else de; every mail's
-- payload.participant is the customer's data. When the hold is no longer live, or its appointment no longer open, it raises BKEXP and
-- nothing is written (the caller books anew).
-- p_changes: {state, message, locale, channel_key, answers, calendar}; p_mails: [{template, recipient, locale, participant, payload}];
-- calendar: the mails carry the first calendar part about the participation, SEQUENCE 0 (recorded in
-- mail_calendar_sequences, as notifications/compose.ts nextCalendarSequence does).
CREATE OR REPLACE FUNCTION book_hold(p_hold uuid, p_now timestamptz, p_consumer jsonb, p_changes jsonb, p_mails jsonb)
RETURNS TABLE (participation jsonb, live_after integer, customer jsonb) LANGUAGE plpgsql AS $$
DECLARE
  c jsonb := consumer_customer(p_consumer);
  part participations;
BEGIN
  UPDATE participations x SET customer_id = (c->>'id')::uuid, state = p_changes->>'state', hold_until = NULL, message = p_changes->>'message',
                              locale = p_changes->>'locale', channel_key = p_changes->>'channel_key',
                              answers = NULLIF(p_changes->'answers', 'null'::jsonb), updated_at = now()
    FROM appointments a
   WHERE x.id = p_hold AND x.state = 'RESERVED' AND participation_is_live(x.state, x.hold_until, p_now) AND a.id = x.appointment_id AND a.state = 'ACTIVE' AND NOT a.archived
  RETURNING x.* INTO part;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'BKEXP', MESSAGE = 'the reservation is no longer a live hold';
  END IF;
  INSERT INTO outbox (crm_id, template, recipient, locale, payload)
  SELECT part.crm_id, m->>'template',
         CASE WHEN (m->>'participant')::boolean THEN c->>'email' ELSE m->>'recipient' END,
         CASE WHEN (m->>'participant')::boolean THEN COALESCE(p_changes->>'locale', c->>'language', 'de') ELSE m->>'locale' END,
         jsonb_set(m->'payload', '{participant}', jsonb_build_object('name', c->'user_name', 'email', c->'email', 'mobile', c->'mobile'))
    FROM jsonb_array_elements(p_mails) m
   WHERE (CASE WHEN (m->>'participant')::boolean THEN c->>'email' ELSE m->>'recipient' END) IS NOT NULL;
  IF (p_changes->>'calendar')::boolean THEN
    INSERT INTO mail_calendar_sequences (participation_id, sequence) VALUES (part.id, 0) ON CONFLICT DO NOTHING;
  END IF;
  RETURN QUERY SELECT to_jsonb(part),
    (SELECT count(*)::int FROM participations y
      WHERE y.appointment_id = part.appointment_id AND participation_is_live(y.state, y.hold_until, p_now)),
    c;
END $$;
