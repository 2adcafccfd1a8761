-- A place through a pool (DESIGN 7.11, docs/pools.md): the member is picked by the pool's rule and
-- its place taken in this one statement, so the pick is decided in the database, never checked in
-- the application and acted on after. p_candidates are the members that offer the slot, as the
-- caller read them ([{resource_id, join: appointment uuid or null, new: the appointment to create
-- (claim_place's p_new) or null}]); everything that can change meanwhile is checked again here by
-- claim_place under its locks.
--
-- Order (deterministic; ties by the members' order): LEAST_RECENTLY_BOOKED: last booked through the
-- pool longest ago, never booked first (pool_members.last_booked, pool_booking_seq); BALANCED: the
-- fewest live REQUESTED or BOOKED participations in the member's appointments that start in the
-- slot's ISO week (provider's zone), then least recently booked; PRIORITY: the highest priority,
-- then least recently booked.
--
-- Parallel requests land on different members: each candidate is tried in a subtransaction that
-- first takes a transaction-scoped advisory lock on (member, slot start) without waiting; a member
-- another claim of the same slot is taking is passed over, and tried again (waiting for it) only
-- when no other member could be had. A failed try rolls its subtransaction back, releasing the
-- lock, so a claim holds the lock of the one member it took and waits for no other while it does:
-- no deadlock. With K requests on N free members, N succeed on N members and the rest find each
-- member taken (BKOVL, 412 "201"). Members refused for a reason of their own (taken, full, busy,
-- at a booking limit, closed) are skipped; BKHLD (the client's hold cap) and BKDUP end the claim.
--
-- A candidate's `state` (A3: the member's booking process) overrides p_participation's. An A3 that
-- makes a REQUESTED or BOOKED participation moves the member's last_booked. The participation
-- records the pool (participations.pool_id). p_moving, a reschedule's participation (booking/
-- reschedule.ts): not counted against the members' booking limits (claim_place), and the move is no
-- booking through the pool, so it moves no member's last_booked.
DROP FUNCTION IF EXISTS claim_pool_place(uuid, jsonb, jsonb, timestamptz, uuid, timestamptz, text, integer);
CREATE OR REPLACE FUNCTION claim_pool_place(
  p_pool uuid,
  p_candidates jsonb,
  p_participation jsonb,
  p_now timestamptz,
  p_public_product uuid,
  p_start timestamptz,
  p_hold_ip text DEFAULT NULL,
  p_max_holds integer DEFAULT NULL,
  p_moving uuid DEFAULT NULL
) RETURNS TABLE (appointment jsonb, participation jsonb, live_before integer, created boolean)
LANGUAGE plpgsql AS $$
DECLARE
  rule text;
  zone text;
  week_from timestamptz;
  week_to timestamptz;
  c record;
  r record;
  pass integer;
  skipped uuid[] := '{}';
  got boolean := false;
  last_refusal text := 'the slot is taken on every member of the pool';
BEGIN
  SELECT pl.assignment, pr.time_zone INTO rule, zone
    FROM pools pl JOIN providers pr ON pr.id = pl.provider_id WHERE pl.id = p_pool;
  IF rule IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'BKGON', MESSAGE = 'the pool was deleted';
  END IF;
  week_from := date_trunc('week', p_start AT TIME ZONE zone) AT TIME ZONE zone;
  week_to := (date_trunc('week', p_start AT TIME ZONE zone) + interval '7 days') AT TIME ZONE zone;

  FOR pass IN 1..2 LOOP
    FOR c IN
      SELECT x.value AS cand, m.resource_id AS rid
        FROM jsonb_array_elements(p_candidates) x
        JOIN pool_members m ON m.pool_id = p_pool AND m.resource_id = (x.value->>'resource_id')::uuid
       ORDER BY
         CASE WHEN rule = 'PRIORITY' THEN -m.priority ELSE 0 END,
         CASE WHEN rule = 'BALANCED' THEN
           (SELECT count(*) FROM appointments a JOIN participations pp ON pp.appointment_id = a.id
             WHERE a.resource_id = m.resource_id AND a.start_at >= week_from AND a.start_at < week_to
               AND appointment_is_current(a.state, a.archived) AND pp.state IN ('REQUESTED', 'BOOKED'))
         ELSE 0 END,
         m.last_booked ASC NULLS FIRST,
         m.position
    LOOP
      CONTINUE WHEN pass = 2 AND NOT (c.rid = ANY (skipped));
      BEGIN
        IF pass = 1 THEN
          IF NOT pg_try_advisory_xact_lock(727041, hashtext(c.rid::text || ' ' || p_start::text)) THEN
            RAISE EXCEPTION USING ERRCODE = 'BKSKP', MESSAGE = 'being taken';
          END IF;
        ELSE
          PERFORM pg_advisory_xact_lock(727041, hashtext(c.rid::text || ' ' || p_start::text));
        END IF;
        SELECT * INTO r FROM claim_place(p_participation => CASE WHEN c.cand ? 'state'
                                           THEN p_participation || jsonb_build_object('state', c.cand->'state')
                                           ELSE p_participation END,
                                         p_now => p_now,
                                         p_join => (c.cand->>'join')::uuid, p_new => NULLIF(c.cand->'new', 'null'),
                                         p_public_product => p_public_product,
                                         p_hold_ip => p_hold_ip, p_max_holds => p_max_holds,
                                         p_moving => p_moving) cp;
        got := true;
      EXCEPTION
        WHEN SQLSTATE 'BKSKP' THEN
          skipped := skipped || c.rid;
        WHEN SQLSTATE 'BKOVL' OR SQLSTATE 'BKFUL' OR SQLSTATE 'BKBSY' OR SQLSTATE 'BKLIM' OR SQLSTATE 'BKCLO'
          OR SQLSTATE 'BKNAC' OR SQLSTATE 'BKGON' OR SQLSTATE '23503' THEN
          last_refusal := SQLERRM;
      END;
      EXIT WHEN got;
    END LOOP;
    EXIT WHEN got;
  END LOOP;
  IF NOT got THEN
    RAISE EXCEPTION USING ERRCODE = 'BKOVL',
      MESSAGE = format('no member of the pool can take the slot %s (%s)', p_start, last_refusal);
  END IF;

  UPDATE participations SET pool_id = p_pool WHERE id = (r.participation->>'id')::uuid;
  IF p_moving IS NULL AND r.participation->>'state' IN ('REQUESTED', 'BOOKED') THEN
    UPDATE pool_members SET last_booked = nextval('pool_booking_seq')
     WHERE pool_id = p_pool AND resource_id = (r.appointment->>'resource_id')::uuid;
  END IF;
  RETURN QUERY SELECT r.appointment, r.participation || jsonb_build_object('pool_id', p_pool), r.live_before, r.created;
END $$;
