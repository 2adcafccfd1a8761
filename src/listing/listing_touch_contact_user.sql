-- a contact user's data and profiles (contact_channel of A1)
CREATE OR REPLACE FUNCTION listing_touch_contact_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bump_listing_version(r.id) FROM resources r WHERE r.contact_user_id = NEW.id;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER users_listing AFTER UPDATE ON users FOR EACH ROW EXECUTE FUNCTION listing_touch_contact_user();
