-- timeslots, appointments, resource_products: rows that name their resource
CREATE OR REPLACE FUNCTION listing_touch_by_resource_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM bump_listing_version(OLD.resource_id); END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.resource_id IS DISTINCT FROM OLD.resource_id) THEN
    PERFORM bump_listing_version(NEW.resource_id);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER resource_products_listing AFTER INSERT OR UPDATE OR DELETE ON resource_products FOR EACH ROW EXECUTE FUNCTION listing_touch_by_resource_id();

CREATE OR REPLACE TRIGGER timeslots_listing AFTER INSERT OR UPDATE OR DELETE ON timeslots FOR EACH ROW EXECUTE FUNCTION listing_touch_by_resource_id();
