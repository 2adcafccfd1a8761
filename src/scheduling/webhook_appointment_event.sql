-- An appointment event: {crmId, providerReference, source, appointment}.
CREATE OR REPLACE FUNCTION webhook_appointment_event(p_type text, p_appointment uuid, p_source text) RETURNS uuid
LANGUAGE plpgsql AS $$
DECLARE
  v_crm text;
  v_data jsonb;
BEGIN
  SELECT crm_id INTO v_crm FROM appointments WHERE id = p_appointment;
  -- the common case, a crm without webhooks, costs this one look
  IF v_crm IS NULL OR NOT EXISTS (SELECT 1 FROM webhook_subscribers(v_crm, p_type)) THEN
    RETURN NULL;
  END IF;
  SELECT jsonb_build_object('crmId', a.crm_id, 'providerReference', pv.reference, 'source', p_source,
                            'appointment', webhook_appointment_json(a.id))
    INTO v_data
    FROM appointments a JOIN providers pv ON pv.id = a.provider_id
   WHERE a.id = p_appointment;
  RETURN webhook_enqueue(v_crm, p_type, v_data);
END $$;
