-- Writes one event with a delivery per subscriber; NULL when nobody wants it (nothing is written).
CREATE OR REPLACE FUNCTION webhook_enqueue(p_crm text, p_type text, p_data jsonb, p_only uuid DEFAULT NULL) RETURNS uuid
LANGUAGE plpgsql AS $$
DECLARE
  subs uuid[] := ARRAY(SELECT s FROM webhook_subscribers(p_crm, p_type, p_only) s);
  ev uuid;
BEGIN
  IF cardinality(subs) = 0 THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_events (crm_id, type, body)
  VALUES (p_crm, p_type, json_build_object('type', p_type, 'timestamp', webhook_iso(now(), 'UTC'), 'data', p_data)::text)
  RETURNING id INTO ev;
  INSERT INTO webhook_deliveries (subscription_id, event_id) SELECT s, ev FROM unnest(subs) s;
  RETURN ev;
END $$;
