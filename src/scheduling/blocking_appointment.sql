-- The first live appointment of the resource whose blocked range meets [p_from, p_until), after
-- releasing on the way the public flow's appointments that hold no live participation at p_at
-- (only expired holds: A1 already lists their time). NULL when the range is free. Used where an
-- insert met the exclusion constraint: claim_place, and the partner's D6 (scheduling/capacity.ts).
CREATE OR REPLACE FUNCTION blocking_appointment(p_resource uuid, p_from timestamptz, p_until timestamptz, p_at timestamptz)
RETURNS appointments LANGUAGE plpgsql AS $$
DECLARE
  x appointments;
BEGIN
  FOR x IN SELECT * FROM appointments
            WHERE resource_id = p_resource AND appointment_is_current(state, archived)
              AND tstzrange(blocked_from, blocked_until) && tstzrange(p_from, p_until)
            ORDER BY start_at LOOP
    -- released now, or meanwhile by another transaction (seen by this statement's own snapshot): free
    IF NOT release_emptied_appointment(x.id, p_at)
       AND EXISTS (SELECT 1 FROM appointments WHERE id = x.id AND appointment_is_current(state, archived)) THEN
      RETURN x;
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
