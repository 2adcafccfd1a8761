-- Reminder rows exist only while their participation is BOOKED: written when it becomes BOOKED or
-- moves while BOOKED, deleted when it stops being BOOKED (and cascaded with it).
CREATE OR REPLACE FUNCTION participation_reminders() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.state = 'BOOKED' AND (TG_OP = 'INSERT' OR OLD.state <> 'BOOKED') THEN
    PERFORM insert_reminders(NEW.id);
  ELSIF NEW.state = 'BOOKED' AND OLD.appointment_id <> NEW.appointment_id THEN
    PERFORM plan_reminders(NEW.id);
  ELSIF TG_OP = 'UPDATE' AND OLD.state = 'BOOKED' AND NEW.state <> 'BOOKED' THEN
    DELETE FROM reminders WHERE participation_id = NEW.id;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER participations_reminders AFTER INSERT OR UPDATE OF state, appointment_id ON participations
  FOR EACH ROW EXECUTE FUNCTION participation_reminders();
