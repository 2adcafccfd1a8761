-- The consumer of a public booking (A3 rules 1-3, docs/api.md): a user of the resource's crm
-- matched by email, else by mobile (the oldest), else created (username: the email made safe for
-- the username rule, numbered -2, -3 ... while taken; language: the given one, else de); missing
-- names and mobile are filled in, never overwritten. Then the provider's customer linked to that
-- user (or an unlinked one with that email, which gets linked), completed; else a new one. The
-- user row stays locked to the end of the transaction, so one consumer's bookings queue up.
-- p: {crm_id, provider_id, email, first_name, last_name, mobile, language, customer_reference}
-- Returns the customer: {id, user_name, email, mobile, language}.
CREATE OR REPLACE FUNCTION consumer_customer(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  v_crm text := p->>'crm_id';
  v_email text := p->>'email';
  v_mobile text := NULLIF(p->>'mobile', '');
  v_base text := regexp_replace(p->>'email', '[/?:&#\\]', '_', 'g');
  u users;
  c customers;
  n integer := 1;
BEGIN
  LOOP
    SELECT * INTO u FROM users x
     WHERE x.crm_id = v_crm AND (lower(x.email) = lower(v_email) OR (v_mobile IS NOT NULL AND x.mobile = v_mobile))
     ORDER BY lower(x.email) = lower(v_email) DESC, x.created_at LIMIT 1 FOR UPDATE;
    EXIT WHEN FOUND;
    INSERT INTO users (crm_id, reference, email, username, first_name, last_name, mobile, language)
    VALUES (v_crm, NULL, v_email, CASE WHEN n = 1 THEN v_base ELSE v_base || '-' || n END, p->>'first_name', p->>'last_name', v_mobile,
            COALESCE(p->>'language', 'de'))
    ON CONFLICT DO NOTHING RETURNING * INTO u;
    EXIT WHEN FOUND;
    -- the email was taken meanwhile (the next look finds that user), or the username is: number it
    n := n + 1;
  END LOOP;
  IF u.first_name IS NULL OR u.last_name IS NULL OR (u.mobile IS NULL AND v_mobile IS NOT NULL) THEN
    UPDATE users x SET first_name = COALESCE(x.first_name, p->>'first_name'), last_name = COALESCE(x.last_name, p->>'last_name'),
                       mobile = COALESCE(x.mobile, v_mobile), updated_at = now()
     WHERE x.id = u.id RETURNING * INTO u;
  END IF;

  SELECT * INTO c FROM customers x
   WHERE x.provider_id = (p->>'provider_id')::uuid AND (x.user_id = u.id OR (x.user_id IS NULL AND lower(x.email) = lower(u.email)))
   ORDER BY x.user_id NULLS LAST, x.created_at LIMIT 1;
  IF NOT FOUND THEN
    INSERT INTO customers (crm_id, provider_id, user_id, reference, user_name, email, mobile, language)
    VALUES (v_crm, (p->>'provider_id')::uuid, u.id, p->>'customer_reference',
            concat_ws(' ', COALESCE(u.first_name, p->>'first_name'), COALESCE(u.last_name, p->>'last_name')),
            u.email, COALESCE(u.mobile, v_mobile), COALESCE(p->>'language', u.language))
    RETURNING * INTO c;
  ELSIF c.user_id IS NULL OR c.email IS NULL OR (c.mobile IS NULL AND v_mobile IS NOT NULL) OR c.language IS NULL THEN
    UPDATE customers x SET user_id = u.id, email = COALESCE(x.email, u.email), mobile = COALESCE(x.mobile, v_mobile),
                           language = COALESCE(x.language, u.language), updated_at = now()
     WHERE x.id = c.id RETURNING * INTO c;
  END IF;
  RETURN jsonb_build_object('id', c.id, 'user_name', c.user_name, 'email', c.email, 'mobile', c.mobile, 'language', c.language);
END $$;
