-- The resource itself (its data, archiving, channels, booking window).
CREATE OR REPLACE FUNCTION listing_touch_resource() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bump_listing_version(CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER resources_listing AFTER UPDATE OR DELETE ON resources FOR EACH ROW EXECUTE FUNCTION listing_touch_resource();
