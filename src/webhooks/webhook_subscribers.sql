-- The subscriptions an event of this type goes to: the crm's enabled ones that want the type, or
-- only p_only whatever it wants (the test event).
CREATE OR REPLACE FUNCTION webhook_subscribers(p_crm text, p_type text, p_only uuid DEFAULT NULL) RETURNS SETOF uuid LANGUAGE sql STABLE AS $$
  SELECT s.id FROM webhook_subscriptions s
   WHERE s.crm_id = p_crm AND (s.id = p_only OR (p_only IS NULL AND s.enabled AND (s.events IS NULL OR p_type = ANY (s.events))))
$$;
