-- A BOOKED participation's reminders planned again (its provider's list or the start changed).
CREATE OR REPLACE FUNCTION plan_reminders(p_participation uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM reminders WHERE participation_id = p_participation;
  PERFORM insert_reminders(p_participation);
END $$;
