-- Migration 009: partner webhooks (docs/webhooks.md), an outbox of events.
--
-- An event is written in the same transaction as the change it reports, by the database
-- functions below (the only code that builds event bodies), so the one-statement hot paths
-- (claim_place, book_hold, sweep_expired_holds) record their events in that same statement. An
-- event gets one delivery row per subscription of its crm that wants its type; a crm without such
-- a subscription writes nothing. The worker (src/webhooks/worker.ts) delivers the rows.

CREATE TABLE webhook_subscriptions (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  crm_id                text NOT NULL,
  url                   text NOT NULL,
  -- NULL: every event type
  events                text[],
  description           text,
  enabled               boolean NOT NULL DEFAULT true,
  secret                text NOT NULL,
  -- the secret before the last rotation: deliveries are signed with it too until previous_secret_until
  previous_secret       text,
  previous_secret_until timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_subscriptions_crm_idx ON webhook_subscriptions (crm_id, created_at);

CREATE TABLE webhook_events (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  crm_id     text NOT NULL,
  type       text NOT NULL,
  -- the exact body of every attempt: {type, timestamp, data}
  body       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE webhook_deliveries (
  subscription_id uuid NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
  event_id        uuid NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  status          text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
  attempts        integer NOT NULL DEFAULT 0,
  -- a manual retry of a FAILED delivery is one more attempt, not a new schedule
  last_chance     boolean NOT NULL DEFAULT false,
  -- when PENDING: due then; while an attempt runs, the end of the worker's lease
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_attempt_at timestamptz,
  response_status integer,
  last_error      text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  -- write order: due deliveries of a subscription go out in it (created_at is the transaction's start)
  seq             bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (subscription_id, event_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (subscription_id, next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX webhook_deliveries_pending_age_idx ON webhook_deliveries (created_at) WHERE status = 'PENDING';
CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (subscription_id, seq DESC);

-- ISO 8601 in the zone with its offset and no fraction, as the API answers instants (2026-06-01T10:00:00+02:00).
CREATE OR REPLACE FUNCTION webhook_iso(ts timestamptz, zone text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT to_char(ts AT TIME ZONE zone, 'YYYY-MM-DD"T"HH24:MI:SS')
         || CASE WHEN o < interval '0' THEN '-' ELSE '+' END
         || to_char(CASE WHEN o < interval '0' THEN -o ELSE o END, 'HH24:MI')
    FROM (SELECT date_trunc('second', ts AT TIME ZONE zone) - date_trunc('second', ts AT TIME ZONE 'UTC') AS o) x
$$;

-- The subscriptions an event of this type goes to: the crm's enabled ones that want the type, or
-- only p_only whatever it wants (the test event).
CREATE OR REPLACE FUNCTION webhook_subscribers(p_crm text, p_type text, p_only uuid DEFAULT NULL) RETURNS SETOF uuid LANGUAGE sql STABLE AS $$
  SELECT s.id FROM webhook_subscriptions s
   WHERE s.crm_id = p_crm AND (s.id = p_only OR (p_only IS NULL AND s.enabled AND (s.events IS NULL OR p_type = ANY (s.events))))
$$;

-- Writes one event with a delivery per subscriber; NULL when nobody wants it (nothing is written).
CREATE OR REPLACE FUNCTION webhook_enqueue(p_crm text, p_type text, p_data jsonb, p_only uuid DEFAULT NULL) RETURNS uuid
LANGUAGE plpgsql AS $$
DECLARE
  subs uuid[] := ARRAY(SELECT webhook_subscribers(p_crm, p_type, p_only));
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

-- The appointment as events show it, capacityLeft as of now (live places: RESERVED with a live
-- hold, REQUESTED, BOOKED).
CREATE OR REPLACE FUNCTION webhook_appointment_json(p_appointment uuid) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
           'reference', a.reference, 'uuid', a.id,
           'start', webhook_iso(a.start_at, pv.time_zone), 'end', webhook_iso(a.end_at, pv.time_zone),
           'resourceReference', r.reference, 'productReference', pr.reference,
           'capacity', a.capacity,
           'capacityLeft', greatest(0, a.capacity - (SELECT count(*) FROM participations x
                                                     WHERE x.appointment_id = a.id
                                                       AND (x.state IN ('REQUESTED', 'BOOKED') OR (x.state = 'RESERVED' AND x.hold_until > now())))))
    FROM appointments a
    JOIN providers pv ON pv.id = a.provider_id
    LEFT JOIN resources r ON r.id = a.resource_id
    LEFT JOIN products pr ON pr.id = a.product_id
   WHERE a.id = p_appointment
$$;

-- A participation event (docs/webhooks.md) about the participation as it is now in this transaction.
-- p_state overrides the state shown (an expired hold is reported CANCELED just before it is
-- deleted); p_previous_state is NULL for a new participation.
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
           'crmId', p.crm_id, 'providerReference', pv.reference, 'source', p_source,
           'participation', jsonb_build_object('reference', p.reference, 'uuid', p.id, 'state', COALESCE(p_state, p.state),
                                               'previousState', p_previous_state, 'message', p_message),
           'appointment', webhook_appointment_json(p.appointment_id),
           'customer', CASE WHEN c.id IS NULL THEN NULL
                            ELSE jsonb_build_object('reference', c.reference, 'name', c.user_name, 'email', c.email, 'mobile', c.mobile) END)
    INTO v_data
    FROM participations p
    JOIN providers pv ON pv.id = p.provider_id
    LEFT JOIN customers c ON c.id = p.customer_id
   WHERE p.id = p_participation;
  RETURN webhook_enqueue(v_crm, p_type, v_data);
END $$;

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

-- The events of a place taken by claim_place (migration 006): the appointment when it was
-- created, then the participation (new: no previous state). Called in the same statement as
-- claim_place (src/scheduling/claimPlace.ts), after it: every statement of a volatile function
-- sees what the statement's earlier parts wrote.
CREATE OR REPLACE FUNCTION webhook_place_events(p_appointment jsonb, p_participation jsonb, p_created boolean, p_source text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  written integer := 0;
BEGIN
  IF p_created AND webhook_appointment_event('appointment.created', (p_appointment->>'id')::uuid, p_source) IS NOT NULL THEN
    written := 1;
  END IF;
  IF webhook_participation_event('participation.' || lower(p_participation->>'state'), (p_participation->>'id')::uuid, p_source,
                                 NULL, p_participation->>'message') IS NOT NULL THEN
    written := written + 1;
  END IF;
  RETURN written;
END $$;

-- The hold sweeper of migration 006, now reporting each expired hold (participation.canceled,
-- source "expiry", RESERVED -> CANCELED as the transition table has it) in the same statement,
-- just before the hold is deleted.
CREATE OR REPLACE FUNCTION sweep_expired_holds(p_now timestamptz, batch integer)
RETURNS TABLE (holds integer, appointments integer) LANGUAGE plpgsql AS $$
DECLARE
  expired uuid[];
  emptied uuid[];
  aid uuid;
  removed integer := 0;
  n integer;
BEGIN
  SELECT array_agg(id) INTO expired FROM (
    SELECT id FROM participations WHERE state = 'RESERVED' AND hold_until <= p_now
     ORDER BY hold_until LIMIT batch FOR UPDATE SKIP LOCKED) x;
  PERFORM webhook_participation_event('participation.canceled', e, 'expiry', 'RESERVED', NULL, 'CANCELED')
     FROM unnest(COALESCE(expired, '{}')) e;
  WITH gone AS (DELETE FROM participations WHERE id = ANY (COALESCE(expired, '{}')) RETURNING appointment_id)
  SELECT array_agg(DISTINCT appointment_id), count(*) INTO emptied, n FROM gone;
  FOREACH aid IN ARRAY COALESCE(emptied, '{}') LOOP
    PERFORM 1 FROM appointments WHERE id = aid AND created_by_public_flow FOR UPDATE;
    IF FOUND THEN
      DELETE FROM appointments WHERE id = aid AND NOT EXISTS (SELECT 1 FROM participations WHERE appointment_id = aid);
      IF FOUND THEN
        removed := removed + 1;
      END IF;
    END IF;
  END LOOP;
  RETURN QUERY SELECT COALESCE(n, 0)::int, removed;
END $$;
