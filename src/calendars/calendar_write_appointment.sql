-- An appointment that moves, changes state or goes: its write-back (calendar_write_enqueue.sql).
CREATE OR REPLACE FUNCTION calendar_write_appointment() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM calendar_write_enqueue(OLD.provider_id, OLD.resource_id, OLD.id);
  IF TG_OP = 'UPDATE' AND NEW.resource_id IS DISTINCT FROM OLD.resource_id THEN
    PERFORM calendar_write_enqueue(NEW.provider_id, NEW.resource_id, NEW.id);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER appointments_calendar_write AFTER UPDATE OF start_at, end_at, state, archived, resource_id, product_name OR DELETE ON appointments
  FOR EACH ROW EXECUTE FUNCTION calendar_write_appointment();
