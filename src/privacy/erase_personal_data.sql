-- Erases a person's data in one crm (docs/privacy.md), in the caller's transaction, everywhere it
-- is kept: the participations (kept as anonymous places: state and capacity unchanged), the
-- customers (user_name "—", e-mail, mobile and note gone), the users (deleted, or anonymized when
-- the partner uses them as owner, staff or contact), the mails (those to the person deleted,
-- pending or sent; those about them to others scrubbed), the webhook events about their
-- participations (customer null, message null, every string showing them null) with their
-- delivery logs, and the stored idempotent answers naming their participations (deleted).
--   p_participations  erased; those whose customer is not in p_customers are detached from it
--   p_customers       anonymized
--   p_users           deleted or anonymized
--   p_needles         what identifies the person besides the rows' own data (the e-mail or mobile asked for)
-- A partner's request erases one person: every mail and event about them is scrubbed of all that
-- identifies them. The retention job (p_source 'retention') erases a batch of people at once: a
-- mail or event about a participation is scrubbed of its own person's data (erasure_needles), a
-- customer's reference checked against its own; users with a partner role are never in its batch.
-- Writes one consumer.erased event (counts only) when anything was erased; returns the counts.
CREATE OR REPLACE FUNCTION erase_personal_data(p_crm text, p_source text, p_participations uuid[], p_customers uuid[], p_users uuid[], p_needles text[])
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  needles text[] := '{}';
  emails text[];
  part_ids text[] := p_participations::text[];
  n_users integer := 0;
  n_customers integer := 0;
  n_participations integer := 0;
  n_mails integer := 0;
  n_events integer := 0;
  n_keys integer := 0;
  n integer;
  counts jsonb;
BEGIN
  IF p_source <> 'retention' THEN
    SELECT COALESCE(array_agg(DISTINCT x), '{}') INTO needles FROM (
      SELECT unnest(p_needles) AS x
      UNION ALL
      SELECT unnest(ARRAY[c.email, c.mobile, c.user_name]) FROM customers c
       WHERE c.id = ANY (p_customers) OR c.id IN (SELECT customer_id FROM participations WHERE id = ANY (p_participations))
      UNION ALL
      SELECT unnest(ARRAY[u.email, u.username, u.first_name, u.last_name, u.phone, u.mobile]) FROM users u WHERE u.id = ANY (p_users)
    ) s WHERE length(btrim(x)) >= 2 AND x <> '—';
  END IF;
  SELECT COALESCE(array_agg(DISTINCT lower(x)), '{}') INTO emails FROM (
    SELECT unnest(p_needles) AS x
    UNION ALL SELECT email FROM customers WHERE id = ANY (p_customers)
    UNION ALL SELECT email FROM users WHERE id = ANY (p_users)
  ) s WHERE x LIKE '%@%';

  -- Mails to the person go, pending (dropped) or sent; mails about their participations to others stay, scrubbed.
  WITH gone AS (
    DELETE FROM outbox o
     WHERE o.crm_id = p_crm
       AND (lower(o.recipient) = ANY (emails)
            OR ((o.payload -> 'participation' ->> 'uuid') = ANY (part_ids) AND lower(o.recipient) = lower(o.payload -> 'participant' ->> 'email')))
    RETURNING 1)
  SELECT count(*) INTO n_mails FROM gone;
  IF p_source = 'retention' THEN
    UPDATE outbox o
       SET payload = privacy_scrub_json(o.payload, w.needles)
                     || jsonb_build_object('participant', jsonb_build_object('name', '—', 'email', NULL, 'mobile', NULL), 'message', NULL),
           last_error = privacy_scrub_text(o.last_error, w.needles)
      FROM (SELECT x::text AS part, erasure_needles(x, p_users, p_needles) AS needles FROM unnest(p_participations) x) w
     WHERE (o.payload -> 'participation' ->> 'uuid') = w.part AND o.crm_id = p_crm;
  ELSE
    UPDATE outbox o
       SET payload = privacy_scrub_json(o.payload, needles)
                     || jsonb_build_object('participant', jsonb_build_object('name', '—', 'email', NULL, 'mobile', NULL), 'message', NULL),
           last_error = privacy_scrub_text(o.last_error, needles)
     WHERE (o.payload -> 'participation' ->> 'uuid') = ANY (part_ids) AND o.crm_id = p_crm;
  END IF;
  GET DIAGNOSTICS n = ROW_COUNT;
  n_mails := n_mails + n;

  -- Webhook events about their participations, and what receivers answered to them.
  WITH scrubbed AS (
    UPDATE webhook_events e
       SET body = jsonb_set(jsonb_set(privacy_scrub_json(e.body::jsonb, w.needles), '{data,customer}', 'null'), '{data,participation,message}', 'null')::text
      FROM (SELECT x::text AS part, CASE WHEN p_source = 'retention' THEN erasure_needles(x, p_users, p_needles) ELSE needles END AS needles
              FROM unnest(p_participations) x) w
     WHERE e.crm_id = p_crm AND (e.body::jsonb #>> '{data,participation,uuid}') = w.part
    RETURNING e.id, w.needles),
  logs AS (
    UPDATE webhook_deliveries d SET last_error = privacy_scrub_text(d.last_error, s.needles)
      FROM scrubbed s WHERE d.event_id = s.id AND d.last_error IS NOT NULL
    RETURNING 1)
  SELECT (SELECT count(*) FROM scrubbed), (SELECT count(*) FROM logs) INTO n_events, n;

  -- Stored idempotent answers (A2, A3, reschedule) naming one of their participations or holds.
  IF cardinality(part_ids) > 0 THEN
    WITH marks AS (
      SELECT '%' || x || '%' AS m FROM participations p, LATERAL unnest(ARRAY[p.id::text, p.placeholder_id::text]) x
       WHERE p.id = ANY (p_participations)),
    gone AS (
      DELETE FROM idempotency_keys k WHERE k.body LIKE ANY (ARRAY(SELECT m FROM marks)) RETURNING 1)
    SELECT count(*) INTO n_keys FROM gone;
  END IF;

  UPDATE participations p
     SET message = NULL, note = NULL, answers = NULL, client_ip = NULL, erased_at = now(), updated_at = now(),
         customer_id = CASE WHEN p.customer_id = ANY (p_customers) THEN p.customer_id END
   WHERE p.id = ANY (p_participations) AND p.crm_id = p_crm AND p.erased_at IS NULL;
  GET DIAGNOSTICS n_participations = ROW_COUNT;

  UPDATE customers c
     SET user_name = '—', email = NULL, mobile = NULL, mobile_e164 = NULL, note = NULL, erased_at = now(), updated_at = now(),
         reference = CASE WHEN privacy_mentions(c.reference, CASE WHEN p_source = 'retention' THEN p_needles || ARRAY[c.email, c.mobile, c.user_name] ELSE needles END)
                          THEN 'erased-' || c.id ELSE c.reference END
   WHERE c.id = ANY (p_customers) AND c.crm_id = p_crm AND c.erased_at IS NULL;
  GET DIAGNOSTICS n_customers = ROW_COUNT;

  -- A user the partner set up as an owner, staff member or contact keeps that role, anonymized;
  -- every other user (a consumer) goes.
  WITH roles AS (
    SELECT u.id, user_has_partner_role(u.id) AS partner_side
      FROM users u WHERE u.id = ANY (p_users) AND u.crm_id = p_crm),
  gone AS (DELETE FROM users WHERE id IN (SELECT id FROM roles WHERE NOT partner_side) RETURNING 1),
  kept AS (
    UPDATE users u
       SET email = 'erased-' || u.id || '@erased.invalid', username = 'erased-' || u.id, first_name = '—', last_name = '—',
           phone = NULL, mobile = NULL, mobile_e164 = NULL, updated_at = now(),
           reference = CASE WHEN privacy_mentions(u.reference, needles) THEN 'erased-' || u.id ELSE u.reference END
     WHERE u.id IN (SELECT id FROM roles WHERE partner_side) AND u.email NOT LIKE 'erased-%@erased.invalid'
    RETURNING 1)
  SELECT (SELECT count(*) FROM gone) + (SELECT count(*) FROM kept) INTO n_users;

  counts := jsonb_build_object('users', n_users, 'customers', n_customers, 'participations', n_participations,
                               'mails', n_mails, 'webhookEvents', n_events, 'idempotencyRecords', n_keys);
  IF n_users + n_customers + n_participations + n_mails + n_events + n_keys > 0 THEN
    PERFORM webhook_enqueue(p_crm, 'consumer.erased', jsonb_build_object('crmId', p_crm, 'source', p_source, 'erased', counts));
  END IF;
  RETURN counts;
END $$;
