-- A change to a resource's listing that names no appointment (timeslots, products, the resource,
-- its provider or contact): a row appended to listing_changes, which never waits on another writer.
-- A resource's version (listing_version) is the number of changes ever committed for it.
CREATE OR REPLACE FUNCTION bump_listing_version(rid uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF rid IS NOT NULL THEN
    INSERT INTO listing_changes (resource_id) VALUES (rid);
  END IF;
END $$;
