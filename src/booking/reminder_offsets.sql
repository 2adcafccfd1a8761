-- The reminder offsets of a provider's bookings: its own list, else REMINDER_MINUTES_BEFORE as
-- stored by set_default_reminders. PL/pgSQL so its plan is kept per session.
CREATE OR REPLACE FUNCTION reminder_offsets(p_provider uuid) RETURNS integer[] LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN COALESCE((SELECT reminder_minutes_before FROM providers WHERE id = p_provider),
                  (SELECT value::integer[] FROM settings WHERE key = 'reminder_minutes_before'),
                  ARRAY[1440]);
END $$;
