-- REMINDER_MINUTES_BEFORE as this instance was started with; when it differs from the stored value,
-- the upcoming bookings of providers without their own list are planned again.
CREATE OR REPLACE FUNCTION set_default_reminders(p_offsets integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF (SELECT value FROM settings WHERE key = 'reminder_minutes_before') IS NOT DISTINCT FROM p_offsets::text THEN
    RETURN;
  END IF;
  INSERT INTO settings (key, value) VALUES ('reminder_minutes_before', p_offsets::text)
  ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value;
  PERFORM plan_reminders(p.id) FROM participations p
    JOIN appointments a ON a.id = p.appointment_id
    JOIN providers pv ON pv.id = p.provider_id
   WHERE pv.reminder_minutes_before IS NULL AND p.state = 'BOOKED' AND a.start_at > now();
END $$;
