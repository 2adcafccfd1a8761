-- Second file of migration 004 (public booking flow); it sorts after 004_public_appointments.
-- Idempotent: an early version of 004_public_appointments carried these statements.

-- Listing versions: a counter per resource that every change able to alter its public listing (A1)
-- raises, in the same transaction as the change. A1 caches its answer per resource version, so a
-- cached listing is served only while nothing it was computed from has changed, on any instance.
CREATE TABLE IF NOT EXISTS listing_versions (
  resource_id uuid PRIMARY KEY,
  version     bigint NOT NULL
);

CREATE OR REPLACE FUNCTION bump_listing_version(rid uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF rid IS NOT NULL THEN
    INSERT INTO listing_versions (resource_id, version) VALUES (rid, 1)
    ON CONFLICT (resource_id) DO UPDATE SET version = listing_versions.version + 1;
  END IF;
END $$;

-- timeslots, appointments, resource_products: rows that name their resource
CREATE OR REPLACE FUNCTION listing_touch_by_resource_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM bump_listing_version(OLD.resource_id); END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.resource_id IS DISTINCT FROM OLD.resource_id) THEN
    PERFORM bump_listing_version(NEW.resource_id);
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS timeslots_listing ON timeslots;
CREATE TRIGGER timeslots_listing AFTER INSERT OR UPDATE OR DELETE ON timeslots FOR EACH ROW EXECUTE FUNCTION listing_touch_by_resource_id();
DROP TRIGGER IF EXISTS appointments_listing ON appointments;
CREATE TRIGGER appointments_listing AFTER INSERT OR UPDATE OR DELETE ON appointments FOR EACH ROW EXECUTE FUNCTION listing_touch_by_resource_id();
DROP TRIGGER IF EXISTS resource_products_listing ON resource_products;
CREATE TRIGGER resource_products_listing AFTER INSERT OR UPDATE OR DELETE ON resource_products FOR EACH ROW EXECUTE FUNCTION listing_touch_by_resource_id();

CREATE OR REPLACE FUNCTION listing_touch_resource() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bump_listing_version(CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS resources_listing ON resources;
CREATE TRIGGER resources_listing AFTER UPDATE OR DELETE ON resources FOR EACH ROW EXECUTE FUNCTION listing_touch_resource();

CREATE OR REPLACE FUNCTION listing_touch_participation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM bump_listing_version(a.resource_id) FROM appointments a WHERE a.id = OLD.appointment_id;
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.appointment_id IS DISTINCT FROM OLD.appointment_id) THEN
    PERFORM bump_listing_version(a.resource_id) FROM appointments a WHERE a.id = NEW.appointment_id;
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS participations_listing ON participations;
CREATE TRIGGER participations_listing AFTER INSERT OR UPDATE OR DELETE ON participations FOR EACH ROW EXECUTE FUNCTION listing_touch_participation();

-- a product shows on the resources offering it and on the appointments booked for it
CREATE OR REPLACE FUNCTION listing_touch_product() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bump_listing_version(rp.resource_id) FROM resource_products rp WHERE rp.product_id = OLD.id;
  PERFORM bump_listing_version(x.resource_id) FROM (SELECT DISTINCT resource_id FROM appointments WHERE product_id = OLD.id) x;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS products_listing ON products;
CREATE TRIGGER products_listing AFTER UPDATE OR DELETE ON products FOR EACH ROW EXECUTE FUNCTION listing_touch_product();

-- the provider's zone and its data as the contact of last resort
CREATE OR REPLACE FUNCTION listing_touch_provider() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bump_listing_version(r.id) FROM resources r WHERE r.provider_id = NEW.id;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS providers_listing ON providers;
CREATE TRIGGER providers_listing AFTER UPDATE ON providers FOR EACH ROW EXECUTE FUNCTION listing_touch_provider();

-- a contact user's data and profiles (contact_channel of A1)
CREATE OR REPLACE FUNCTION listing_touch_contact_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bump_listing_version(r.id) FROM resources r WHERE r.contact_user_id = NEW.id;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS users_listing ON users;
CREATE TRIGGER users_listing AFTER UPDATE ON users FOR EACH ROW EXECUTE FUNCTION listing_touch_contact_user();

CREATE OR REPLACE FUNCTION listing_touch_contact_profile() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE p contact_profiles;
BEGIN
  p := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
  PERFORM bump_listing_version(r.id) FROM resources r
    WHERE r.contact_profile_id = p.id OR (p.provider_id IS NULL AND r.contact_user_id = p.user_id);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS contact_profiles_listing ON contact_profiles;
CREATE TRIGGER contact_profiles_listing AFTER INSERT OR UPDATE OR DELETE ON contact_profiles FOR EACH ROW EXECUTE FUNCTION listing_touch_contact_profile();

CREATE INDEX IF NOT EXISTS resources_contact_user_idx ON resources (contact_user_id) WHERE contact_user_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS resources_contact_profile_idx ON resources (contact_profile_id) WHERE contact_profile_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS resource_products_product_idx ON resource_products (product_id);
CREATE INDEX IF NOT EXISTS appointments_product_idx ON appointments (product_id) WHERE product_id IS NOT NULL;

-- The live holds of one client address, counted under a per-address advisory lock (taken first, in
-- the same call), so concurrent reservations from one address cannot both pass the cap.
CREATE OR REPLACE FUNCTION public_live_holds(ip text, at timestamptz) RETURNS integer LANGUAGE sql VOLATILE AS $$
  SELECT pg_advisory_xact_lock(727005, hashtext(ip));
  SELECT count(*)::int FROM participations WHERE state = 'RESERVED' AND hold_until > at AND client_ip = ip;
$$;
