-- A contact profile shows on the resources that name it, and as a user's general profile on the
-- resources whose contact is that user.
CREATE OR REPLACE FUNCTION listing_touch_contact_profile() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE p contact_profiles;
BEGIN
  p := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
  PERFORM bump_listing_version(r.id) FROM resources r
    WHERE r.contact_profile_id = p.id OR (p.provider_id IS NULL AND r.contact_user_id = p.user_id);
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER contact_profiles_listing AFTER INSERT OR UPDATE OR DELETE ON contact_profiles FOR EACH ROW EXECUTE FUNCTION listing_touch_contact_profile();
