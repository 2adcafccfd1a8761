-- A busy time added or removed changes the listing of the resource it covers, or of every resource
-- of its provider. Per statement, so a calendar's hundreds of intervals written at once bump each
-- resource once.
CREATE OR REPLACE FUNCTION listing_touch_busy() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM bump_listing_version(r.id)
       FROM resources r JOIN (SELECT DISTINCT provider_id, resource_id FROM busy_new) c
         ON r.provider_id = c.provider_id AND (c.resource_id IS NULL OR r.id = c.resource_id);
  ELSE
    PERFORM bump_listing_version(r.id)
       FROM resources r JOIN (SELECT DISTINCT provider_id, resource_id FROM busy_old) c
         ON r.provider_id = c.provider_id AND (c.resource_id IS NULL OR r.id = c.resource_id);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER busy_times_listing_insert AFTER INSERT ON busy_times
  REFERENCING NEW TABLE AS busy_new FOR EACH STATEMENT EXECUTE FUNCTION listing_touch_busy();
CREATE OR REPLACE TRIGGER busy_times_listing_delete AFTER DELETE ON busy_times
  REFERENCING OLD TABLE AS busy_old FOR EACH STATEMENT EXECUTE FUNCTION listing_touch_busy();
