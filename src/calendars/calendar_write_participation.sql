-- Holds (RESERVED) are not written: only a participation that is or was REQUESTED or BOOKED counts.
CREATE OR REPLACE FUNCTION calendar_write_participation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.state IN ('REQUESTED', 'BOOKED') THEN
    PERFORM calendar_write_enqueue(a.provider_id, a.resource_id, a.id) FROM appointments a WHERE a.id = OLD.appointment_id;
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.state IN ('REQUESTED', 'BOOKED')
     AND (TG_OP = 'INSERT' OR NEW.state IS DISTINCT FROM OLD.state OR NEW.appointment_id IS DISTINCT FROM OLD.appointment_id) THEN
    PERFORM calendar_write_enqueue(a.provider_id, a.resource_id, a.id) FROM appointments a WHERE a.id = NEW.appointment_id;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER participations_calendar_write AFTER INSERT OR UPDATE OF state, appointment_id OR DELETE ON participations
  FOR EACH ROW EXECUTE FUNCTION calendar_write_participation();
