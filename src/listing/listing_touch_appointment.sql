-- An appointment's change names the appointment (bump_listing_change).
CREATE OR REPLACE FUNCTION listing_touch_appointment() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM bump_listing_change(OLD.resource_id, OLD.id); END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.resource_id IS DISTINCT FROM OLD.resource_id) THEN
    PERFORM bump_listing_change(NEW.resource_id, NEW.id);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER appointments_listing AFTER INSERT OR UPDATE OR DELETE ON appointments FOR EACH ROW EXECUTE FUNCTION listing_touch_appointment();
