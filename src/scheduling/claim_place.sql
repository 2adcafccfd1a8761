-- Taking a place in one statement (scheduling/claimPlace.ts). The check (the appointment's state and
-- free places) and the take (the participation row) happen under the appointment's row lock inside
-- this function, so the lock is held for no round trip to the application when the call commits on
-- its own (the public flow), and for one (COMMIT) otherwise. Failures are raised with SQLSTATE
-- class BK:
--   BKHLD  the client (p_hold_ip, its key) holds p_max_holds live reservations already; counted without
--          a lock (public_live_holds), so concurrent claims of one client may overshoot by those in flight
--   BKOVL  the range meets another live appointment of the resource (buffers counted)
--   BKBSY  (public rules) the appointment's range, buffers counted, meets a busy time of the resource
--          (busy_at: a closure or a subscribed calendar's event); the partner's D6/D9 are not refused
--   BKGON  the appointment to join does not exist (any more)
--   BKCLO  the appointment is cancelled or archived
--   BKNAC  (public rules) the appointment takes no public bookings, or is for another product
--   BKDUP  the customer holds a place in the appointment already
--   BKFUL  no free place (participation_is_live)
--   BKLIM  (public rules) the resource's booking limit for the slot's date or week is reached
--          (check_booking_limits, check_booking_limits.sql; p_moving, a reschedule's participation, not
--          counted); the partner's D6/D9 are not refused
-- With p_new (create the slot's appointment, or join it when it exists) an appointment in the way
-- that holds no live participation is released first (blocking_appointment), and one released
-- while this call waited for its lock is passed over: the slot's appointment is created anew.
CREATE OR REPLACE FUNCTION claim_place(
  p_participation jsonb,
  p_now timestamptz,
  p_join uuid DEFAULT NULL,
  p_new jsonb DEFAULT NULL,
  p_public_product uuid DEFAULT NULL,
  p_ignore_capacity boolean DEFAULT false,
  p_hold_ip text DEFAULT NULL,
  p_max_holds integer DEFAULT NULL,
  p_moving uuid DEFAULT NULL
) RETURNS TABLE (appointment jsonb, participation jsonb, live_before integer, created boolean)
LANGUAGE plpgsql AS $$
DECLARE
  a appointments;
  np appointments;
  part participations;
  target uuid := p_join;
  live integer := 0;
  made boolean := false;
BEGIN
  IF p_hold_ip IS NOT NULL THEN
    live := public_live_holds(p_hold_ip, p_now);
    IF live >= p_max_holds THEN
      RAISE EXCEPTION USING ERRCODE = 'BKHLD', MESSAGE = format('this client already holds %s live reservations (at most %s); book or let them expire first', live, p_max_holds);
    END IF;
    live := 0;
  END IF;
  part := jsonb_populate_record(NULL::participations, p_participation);
  IF p_new IS NOT NULL THEN
    np := jsonb_populate_record(NULL::appointments, p_new);
    IF p_public_product IS NOT NULL AND busy_at(np.provider_id, np.resource_id, np.blocked_from, np.blocked_until) THEN
      RAISE EXCEPTION USING ERRCODE = 'BKBSY', MESSAGE = format('the slot %s meets a busy time of the resource', np.start_at);
    END IF;
  END IF;

  FOR attempt IN 1..5 LOOP
    IF target IS NULL THEN
      INSERT INTO appointments (id, crm_id, provider_id, resource_id, product_id, timeslot_id, reference, series_id, start_at, end_at,
                                blocked_from, blocked_until, capacity, accept_bookings, product_name, contact_user_id, address,
                                price_value, price_currency, description, notes, created_by_public_flow)
      VALUES (np.id, np.crm_id, np.provider_id, np.resource_id, np.product_id, np.timeslot_id, np.reference, np.series_id, np.start_at, np.end_at,
              np.blocked_from, np.blocked_until, np.capacity, np.accept_bookings, np.product_name, np.contact_user_id, np.address,
              np.price_value, np.price_currency, np.description, np.notes, np.created_by_public_flow)
      ON CONFLICT DO NOTHING
      RETURNING * INTO a;
      IF FOUND THEN
        made := true;
        EXIT;
      END IF;
      -- A live appointment blocks the range (ON CONFLICT waited for its transaction). When it is this
      -- very slot, join it; this statement sees it, as every statement of a function takes a new snapshot.
      SELECT x.id INTO target FROM appointments x
       WHERE x.resource_id = np.resource_id AND x.start_at = np.start_at AND x.end_at = np.end_at AND appointment_is_current(x.state, x.archived)
       LIMIT 1;
      IF target IS NULL THEN
        IF (blocking_appointment(np.resource_id, np.blocked_from, np.blocked_until, p_now)).id IS NOT NULL THEN
          RAISE EXCEPTION USING ERRCODE = 'BKOVL', MESSAGE = format('the slot %s overlaps another appointment', np.start_at);
        END IF;
        CONTINUE; -- the appointments in the way are gone or released meanwhile: the range is free again
      END IF;
    END IF;
    SELECT * INTO a FROM appointments WHERE id = target FOR UPDATE;
    IF FOUND AND NOT (np.id IS NOT NULL AND a.created_by_public_flow AND a.state <> 'ACTIVE') THEN
      EXIT;
    END IF;
    IF np.id IS NULL THEN
      RAISE EXCEPTION USING ERRCODE = 'BKGON', MESSAGE = format('appointment %s does not exist', target);
    END IF;
    a := NULL;
    target := NULL; -- swept or released after it was looked up: create the slot's appointment anew
  END LOOP;
  IF a.id IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'BKOVL', MESSAGE = 'the slot is being taken and released too often; try again';
  END IF;

  IF NOT made THEN
    IF a.state <> 'ACTIVE' OR a.archived THEN
      RAISE EXCEPTION USING ERRCODE = 'BKCLO', MESSAGE = format('appointment %s is %s', a.reference, CASE WHEN a.state <> 'ACTIVE' THEN 'cancelled' ELSE 'archived' END);
    END IF;
    IF p_public_product IS NOT NULL AND (NOT a.accept_bookings OR (a.product_id IS NOT NULL AND a.product_id <> p_public_product)) THEN
      RAISE EXCEPTION USING ERRCODE = 'BKNAC', MESSAGE = format('the slot %s is not open for bookings of this product', a.start_at);
    END IF;
    IF p_public_product IS NOT NULL AND busy_at(a.provider_id, a.resource_id, a.blocked_from, a.blocked_until) THEN
      RAISE EXCEPTION USING ERRCODE = 'BKBSY', MESSAGE = format('the slot %s meets a busy time of the resource', a.start_at);
    END IF;
  END IF;
  IF part.state IN ('RESERVED', 'REQUESTED', 'BOOKED') AND NOT made THEN
    IF part.customer_id IS NOT NULL AND EXISTS (
         SELECT 1 FROM participations x
          WHERE x.appointment_id = a.id AND x.customer_id = part.customer_id
            AND participation_is_live(x.state, x.hold_until, p_now)) THEN
      RAISE EXCEPTION USING ERRCODE = 'BKDUP', MESSAGE = format('the customer already participates in appointment %s', a.reference);
    END IF;
    SELECT count(*)::int INTO live FROM participations x
     WHERE x.appointment_id = a.id AND participation_is_live(x.state, x.hold_until, p_now);
    IF live >= a.capacity AND NOT p_ignore_capacity THEN
      RAISE EXCEPTION USING ERRCODE = 'BKFUL', MESSAGE = format('appointment %s has no free place (capacity %s)', a.reference, a.capacity);
    END IF;
  END IF;
  -- Booking limits, after the appointment's lock (or its insert): the check serializes only claims
  -- of the same limited resource and date or week.
  IF p_public_product IS NOT NULL AND part.state IN ('RESERVED', 'REQUESTED', 'BOOKED') THEN
    PERFORM check_booking_limits(a.resource_id, a.start_at, p_now, p_moving);
  END IF;

  INSERT INTO participations (id, crm_id, provider_id, appointment_id, reference, customer_id, placeholder_id, state, hold_until,
                              client_ip, channel_key, message, locale, note, answers)
  VALUES (COALESCE(part.id, gen_random_uuid()), part.crm_id, part.provider_id, a.id, part.reference, part.customer_id,
          COALESCE(part.placeholder_id, gen_random_uuid()), part.state, part.hold_until, part.client_ip, part.channel_key,
          part.message, part.locale, part.note, part.answers)
  RETURNING * INTO part;
  RETURN QUERY SELECT to_jsonb(a), to_jsonb(part), live, made;
END $$;
