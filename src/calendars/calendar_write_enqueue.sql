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
