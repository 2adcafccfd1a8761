-- The events of a place taken by claim_place (claim_place.sql): the appointment when it was
-- created, then the participation (new: no previous state). Called in the same statement as
-- claim_place (src/scheduling/claimPlace.ts), after it: every statement of a volatile function
-- sees what the statement's earlier parts wrote.
CREATE OR REPLACE FUNCTION webhook_place_events(p_appointment jsonb, p_participation jsonb, p_created boolean, p_source text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  written integer := 0;
BEGIN
  IF p_created AND webhook_appointment_event('appointment.created', (p_appointment->>'id')::uuid, p_source) IS NOT NULL THEN
    written := 1;
  END IF;
  IF webhook_participation_event('participation.' || lower(p_participation->>'state'), (p_participation->>'id')::uuid, p_source,
                                 NULL, p_participation->>'message') IS NOT NULL THEN
    written := written + 1;
  END IF;
  RETURN written;
END $$;
