-- the provider's zone and its data as the contact of last resort
CREATE OR REPLACE FUNCTION listing_touch_provider() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bump_listing_version(r.id) FROM resources r WHERE r.provider_id = NEW.id;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER providers_listing AFTER UPDATE ON providers FOR EACH ROW EXECUTE FUNCTION listing_touch_provider();
