-- A participation event (docs/webhooks.md) about the participation as it is now in this transaction.
-- p_state overrides the state shown (an expired hold is reported CANCELED just before it is
-- deleted); p_previous_state is NULL for a new participation. poolReference: the pool it was booked
-- through (DESIGN 7.11), NULL otherwise.
CREATE OR REPLACE FUNCTION webhook_participation_event(p_type text, p_participation uuid, p_source text, p_previous_state text,
                                                       p_message text, p_state text DEFAULT NULL) RETURNS uuid
LANGUAGE plpgsql AS $$
DECLARE
  v_crm text;
  v_data jsonb;
BEGIN
  SELECT crm_id INTO v_crm FROM participations WHERE id = p_participation;
  -- the common case, a crm without webhooks, costs this one look
  IF v_crm IS NULL OR NOT EXISTS (SELECT 1 FROM webhook_subscribers(v_crm, p_type)) THEN
    RETURN NULL;
  END IF;
  SELECT jsonb_build_object(
           'crmId', p.crm_id, 'providerReference', pv.reference, 'poolReference', pl.reference, 'source', p_source,
           'participation', jsonb_build_object('reference', p.reference, 'uuid', p.id, 'state', COALESCE(p_state, p.state),
                                               'previousState', p_previous_state, 'message', p_message,
                                               'answers', COALESCE(p.answers, '[]'::jsonb)),
           'appointment', webhook_appointment_json(p.appointment_id),
           'customer', CASE WHEN c.id IS NULL THEN NULL
                            ELSE jsonb_build_object('reference', c.reference, 'name', c.user_name, 'email', c.email, 'mobile', c.mobile) END)
    INTO v_data
    FROM participations p
    JOIN providers pv ON pv.id = p.provider_id
    LEFT JOIN pools pl ON pl.id = p.pool_id
    LEFT JOIN customers c ON c.id = p.customer_id
   WHERE p.id = p_participation;
  RETURN webhook_enqueue(v_crm, p_type, v_data);
END $$;
