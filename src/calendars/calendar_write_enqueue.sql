-- The CalDAV write-back outbox (calendars/writeBack.ts): a change to an appointment, or to one of
-- its REQUESTED or BOOKED participations, marks the appointment for every CalDAV subscription that
-- covers its resource, in the transaction of the change, so nothing is lost while a calendar is
-- down. One row per (subscription, appointment) stands for any number of changes: the worker
-- writes what the appointment is when it runs.
CREATE OR REPLACE FUNCTION calendar_write_enqueue(p_provider uuid, p_resource uuid, p_appointment uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO calendar_writes AS w (subscription_id, appointment_id)
  SELECT s.id, p_appointment FROM calendar_subscriptions s
   WHERE s.provider_id = p_provider AND s.kind = 'caldav' AND (s.resource_id IS NULL OR s.resource_id = p_resource)
  ON CONFLICT (subscription_id, appointment_id) DO UPDATE SET version = w.version + 1, due_at = '-infinity', attempts = 0, last_error = NULL;
END $$;

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
