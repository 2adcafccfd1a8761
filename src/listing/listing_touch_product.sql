-- a product shows on the resources offering it and on the appointments booked for it
CREATE OR REPLACE FUNCTION listing_touch_product() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bump_listing_version(rp.resource_id) FROM resource_products rp WHERE rp.product_id = OLD.id;
  PERFORM bump_listing_version(x.resource_id) FROM (SELECT DISTINCT resource_id FROM appointments WHERE product_id = OLD.id) x;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER products_listing AFTER UPDATE OR DELETE ON products FOR EACH ROW EXECUTE FUNCTION listing_touch_product();
