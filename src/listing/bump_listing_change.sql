-- A change to a resource's listing that names the appointment it touched, with the writing
-- transaction's id (listing_changes.xid): A1 reads only the appointments changed since its snapshot.
CREATE OR REPLACE FUNCTION bump_listing_change(rid uuid, aid uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF rid IS NOT NULL THEN
    INSERT INTO listing_changes (resource_id, appointment_id) VALUES (rid, aid);
  END IF;
END $$;
