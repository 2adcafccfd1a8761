-- A pool's reference is never a resource reference of the same crm, whichever is written first
-- (DESIGN 7.11: 409 CONFLICT either way). Both writes take one transaction-scoped advisory lock per
-- (crm, reference) before they look, so two concurrent writes of the same reference see each other.
-- Refused with SQLSTATE BKREF (http/errors.ts answers 409 CONFLICT with the message).
CREATE OR REPLACE FUNCTION pool_reference_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(727040, hashtext(NEW.crm_id || ' ' || NEW.reference));
  IF TG_TABLE_NAME = 'pools' THEN
    IF EXISTS (SELECT 1 FROM resources r WHERE r.crm_id = NEW.crm_id AND r.reference = NEW.reference) THEN
      RAISE EXCEPTION USING ERRCODE = 'BKREF',
        MESSAGE = format('body.reference %s is the reference of a resource; a pool needs a reference of its own',
                         NEW.reference);
    END IF;
  ELSIF EXISTS (SELECT 1 FROM pools p WHERE p.crm_id = NEW.crm_id AND p.reference = NEW.reference) THEN
    RAISE EXCEPTION USING ERRCODE = 'BKREF',
      MESSAGE = format('body.reference %s is the reference of a pool; a resource needs a reference of its own',
                       NEW.reference);
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER pools_reference_guard BEFORE INSERT OR UPDATE OF reference ON pools
  FOR EACH ROW EXECUTE FUNCTION pool_reference_guard();
CREATE OR REPLACE TRIGGER resources_pool_reference_guard BEFORE INSERT OR UPDATE OF reference ON resources
  FOR EACH ROW EXECUTE FUNCTION pool_reference_guard();
