-- Every way a participation stops holding its place by a write (cancel link, partner D10 CANCELED
-- or DELETED, a declined request, the old place of a reschedule, a removed customer or resource)
-- releases its appointment when that was the last one, in the same transaction.
CREATE OR REPLACE FUNCTION participation_left_appointment() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM release_emptied_appointment(OLD.appointment_id, '-infinity');
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER participations_release AFTER UPDATE OF state, appointment_id ON participations
  FOR EACH ROW WHEN (OLD.appointment_id IS DISTINCT FROM NEW.appointment_id
                     OR (OLD.state IN ('RESERVED', 'REQUESTED', 'BOOKED') AND NEW.state IN ('CANCELED', 'DELETED')))
  EXECUTE FUNCTION participation_left_appointment();
