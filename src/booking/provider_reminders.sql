-- A provider's new list applies to its upcoming bookings too.
CREATE OR REPLACE FUNCTION provider_reminders() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM plan_reminders(p.id) FROM participations p JOIN appointments a ON a.id = p.appointment_id
   WHERE p.provider_id = NEW.id AND p.state = 'BOOKED' AND a.start_at > now();
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER providers_reminders AFTER UPDATE OF reminder_minutes_before ON providers
  FOR EACH ROW WHEN (OLD.reminder_minutes_before IS DISTINCT FROM NEW.reminder_minutes_before)
  EXECUTE FUNCTION provider_reminders();
