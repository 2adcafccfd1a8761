-- The consumer of a public booking (docs/api.md "Consumer rules", DESIGN 7.12): a consumer is who
-- their e-mail says. The user of the resource's crm with the typed e-mail (case-insensitive), else a
-- new one (username: the e-mail made safe for the username rule, numbered -2, -3 ... while taken;
-- language: the given one, else de). Every user has an e-mail (C1 requires one), so a user is never
-- found by mobile: one with another e-mail is another person, whatever number they share. Then the
-- provider's customer who is that person (matching_customer), completed; else a new one. Missing
-- names and mobile are filled in, never overwritten; a mobile filled in brings its E.164 form. The
-- user row stays locked to the end of the transaction, so one consumer's bookings queue up.
-- p: {crm_id, provider_id, email, first_name, last_name, mobile, mobile_e164, language, customer_reference}
-- Returns the customer: {id, user_name, email, mobile, language}.
CREATE OR REPLACE FUNCTION consumer_customer(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_crm text := p->>'crm_id';
  v_email text := p->>'email';
  v_mobile text := NULLIF(btrim(p->>'mobile'), '');
  v_e164 text := NULLIF(p->>'mobile_e164', '');
  v_base text := regexp_replace(p->>'email', '[/?:&#\\]', '_', 'g');
  u users;
  c customers;
  n integer := 1;
BEGIN
  LOOP
    SELECT * INTO u FROM users x WHERE x.crm_id = v_crm AND lower(x.email) = lower(v_email) FOR UPDATE;
    EXIT WHEN FOUND;
    INSERT INTO users (crm_id, reference, email, username, first_name, last_name, mobile, mobile_e164, language)
    VALUES (v_crm, NULL, v_email, CASE WHEN n = 1 THEN v_base ELSE v_base || '-' || n END, p->>'first_name', p->>'last_name', v_mobile,
            CASE WHEN v_mobile IS NOT NULL THEN v_e164 END, COALESCE(p->>'language', 'de'))
    ON CONFLICT DO NOTHING RETURNING * INTO u;
    EXIT WHEN FOUND;
    -- the email was taken meanwhile (the next look finds that user), or the username is: number it
    n := n + 1;
  END LOOP;
  IF u.first_name IS NULL OR u.last_name IS NULL OR (u.mobile IS NULL AND v_mobile IS NOT NULL) THEN
    UPDATE users x SET first_name = COALESCE(x.first_name, p->>'first_name'), last_name = COALESCE(x.last_name, p->>'last_name'),
                       mobile = COALESCE(x.mobile, v_mobile), mobile_e164 = CASE WHEN x.mobile IS NULL THEN v_e164 ELSE x.mobile_e164 END,
                       updated_at = now()
     WHERE x.id = u.id RETURNING * INTO u;
  END IF;

  SELECT * INTO c FROM matching_customer((p->>'provider_id')::uuid, u.id, u.email, v_mobile, v_e164);
  IF c.id IS NULL THEN
    INSERT INTO customers (crm_id, provider_id, user_id, reference, user_name, email, mobile, mobile_e164, language)
    VALUES (v_crm, (p->>'provider_id')::uuid, u.id, p->>'customer_reference',
            concat_ws(' ', COALESCE(u.first_name, p->>'first_name'), COALESCE(u.last_name, p->>'last_name')),
            u.email, COALESCE(v_mobile, u.mobile), CASE WHEN v_mobile IS NOT NULL THEN v_e164 ELSE u.mobile_e164 END,
            COALESCE(p->>'language', u.language))
    RETURNING * INTO c;
  ELSIF c.user_id IS NULL OR c.email IS NULL OR (c.mobile IS NULL AND v_mobile IS NOT NULL) OR c.language IS NULL THEN
    UPDATE customers x SET user_id = u.id, email = COALESCE(x.email, u.email), mobile = COALESCE(x.mobile, v_mobile),
                           mobile_e164 = CASE WHEN x.mobile IS NULL THEN v_e164 ELSE x.mobile_e164 END,
                           language = COALESCE(x.language, u.language), updated_at = now()
     WHERE x.id = c.id RETURNING * INTO c;
  END IF;
  RETURN jsonb_build_object('id', c.id, 'user_name', c.user_name, 'email', c.email, 'mobile', c.mobile, 'language', c.language);
END $$;
