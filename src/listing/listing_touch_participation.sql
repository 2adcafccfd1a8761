-- A participation's change moves its appointment's live places: it names the appointment.
CREATE OR REPLACE FUNCTION listing_touch_participation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM bump_listing_change(a.resource_id, a.id) FROM appointments a WHERE a.id = OLD.appointment_id;
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.appointment_id IS DISTINCT FROM OLD.appointment_id) THEN
    PERFORM bump_listing_change(a.resource_id, a.id) FROM appointments a WHERE a.id = NEW.appointment_id;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER participations_listing AFTER INSERT OR UPDATE OR DELETE ON participations FOR EACH ROW EXECUTE FUNCTION listing_touch_participation();
