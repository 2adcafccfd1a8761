-- Migration 006: a booking core in which no write waits on unrelated work.
--
-- 1. Listing versions without a hot row. Before, every change that could alter a resource's public
--    listing raised a counter row per resource (listing_versions): every booking of a resource, and
--    every provider, product or profile update touching it, queued on that row until commit. Now a
--    change only INSERTs a row into listing_changes, which never waits on another writer. A
--    resource's version is the number of changes ever committed for it: the rows in
--    listing_changes plus what compaction has folded into listing_change_totals. It only grows, and
--    grows with every commit that touches the resource, whatever order transactions commit in, so a
--    cached listing checked against it is never served after a change became visible.
CREATE TABLE listing_changes (resource_id uuid NOT NULL);
CREATE INDEX listing_changes_resource_idx ON listing_changes (resource_id);

CREATE TABLE listing_change_totals (
  resource_id uuid PRIMARY KEY,
  total       bigint NOT NULL
);
INSERT INTO listing_change_totals (resource_id, total) SELECT resource_id, version FROM listing_versions;
DROP TABLE listing_versions;

-- Every listing trigger of migration 004 calls this: it now appends instead of updating a counter.
CREATE OR REPLACE FUNCTION bump_listing_version(rid uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF rid IS NOT NULL THEN
    INSERT INTO listing_changes (resource_id) VALUES (rid);
  END IF;
END $$;

CREATE OR REPLACE FUNCTION listing_version(rid uuid) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT COALESCE((SELECT total FROM listing_change_totals WHERE resource_id = rid), 0)
       + (SELECT count(*) FROM listing_changes WHERE resource_id = rid)
$$;

-- Folds change rows into the totals in one statement, so a reader sees either all of a batch as
-- rows or all of it in the totals: the sum never moves. Rows of transactions still running are not
-- visible here and stay for the next run. One instance compacts at a time; others skip the turn.
CREATE OR REPLACE FUNCTION compact_listing_changes(batch integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  moved integer;
BEGIN
  IF NOT pg_try_advisory_xact_lock(727006) THEN
    RETURN 0;
  END IF;
  WITH gone AS (
         DELETE FROM listing_changes WHERE ctid = ANY (ARRAY(SELECT ctid FROM listing_changes LIMIT batch))
         RETURNING resource_id),
       counted AS (SELECT resource_id, count(*) AS n FROM gone GROUP BY resource_id),
       folded AS (
         INSERT INTO listing_change_totals AS t (resource_id, total) SELECT resource_id, n FROM counted
         ON CONFLICT (resource_id) DO UPDATE SET total = t.total + EXCLUDED.total)
  SELECT COALESCE(sum(n), 0)::int INTO moved FROM counted;
  RETURN moved;
END $$;

-- 2. Buffers enforced by the database. An appointment blocks its resource over
--    [blocked_from, blocked_until): its own time widened by the lead/follow-up buffers of the product
--    it was booked for (the public flow stores them; partner appointments block their own time). The
--    exclusion constraint now spans the blocked ranges, so two appointments whose buffered ranges meet
--    can never both be live, and creating one needs no resource-wide lock: concurrent inserts of
--    disjoint ranges never wait on each other.
ALTER TABLE appointments ADD COLUMN blocked_from timestamptz, ADD COLUMN blocked_until timestamptz;
UPDATE appointments SET blocked_from = start_at, blocked_until = end_at;
ALTER TABLE appointments ALTER COLUMN blocked_from SET NOT NULL, ALTER COLUMN blocked_until SET NOT NULL;
ALTER TABLE appointments ADD CONSTRAINT appointments_blocked_covers CHECK (blocked_from <= start_at AND blocked_until >= end_at);
ALTER TABLE appointments DROP CONSTRAINT appointments_no_overlap;
ALTER TABLE appointments ADD CONSTRAINT appointments_no_overlap EXCLUDE USING gist (
  resource_id WITH =, tstzrange(blocked_from, blocked_until) WITH &&
) WHERE (state = 'ACTIVE' AND NOT archived);
CREATE INDEX appointments_resource_blocked_idx ON appointments (resource_id, blocked_until);

-- 3. Taking a place in one statement. The check (the appointment's state and free places) and the
--    take (the participation row) happen under the appointment's row lock inside this function, so
--    the lock is held for no round trip to the application when the call commits on its own (the
--    public flow), and for one (COMMIT) otherwise. Failures are raised with SQLSTATE class BK:
--      BKHLD  the address holds p_max_holds live reservations already
--      BKOVL  the range meets another live appointment of the resource (buffers counted)
--      BKGON  the appointment to join does not exist (any more)
--      BKCLO  the appointment is cancelled or archived
--      BKNAC  (public rules) the appointment takes no public bookings, or is for another product
--      BKDUP  the customer holds a place in the appointment already
--      BKFUL  no free place (RESERVED with a live hold, REQUESTED and BOOKED count)
CREATE OR REPLACE FUNCTION claim_place(
  p_participation jsonb,
  p_now timestamptz,
  p_join uuid DEFAULT NULL,
  p_new jsonb DEFAULT NULL,
  p_public_product uuid DEFAULT NULL,
  p_ignore_capacity boolean DEFAULT false,
  p_hold_ip text DEFAULT NULL,
  p_max_holds integer DEFAULT NULL
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
       WHERE x.resource_id = np.resource_id AND x.start_at = np.start_at AND x.end_at = np.end_at AND x.state = 'ACTIVE' AND NOT x.archived
       LIMIT 1;
      IF target IS NULL THEN
        IF EXISTS (SELECT 1 FROM appointments x
                    WHERE x.resource_id = np.resource_id AND x.state = 'ACTIVE' AND NOT x.archived
                      AND tstzrange(x.blocked_from, x.blocked_until) && tstzrange(np.blocked_from, np.blocked_until)) THEN
          RAISE EXCEPTION USING ERRCODE = 'BKOVL', MESSAGE = format('the slot %s overlaps another appointment', np.start_at);
        END IF;
        CONTINUE; -- the blocking appointment is gone (swept) meanwhile: the range is free again
      END IF;
    END IF;
    SELECT * INTO a FROM appointments WHERE id = target FOR UPDATE;
    IF FOUND THEN
      EXIT;
    END IF;
    IF np.id IS NULL THEN
      RAISE EXCEPTION USING ERRCODE = 'BKGON', MESSAGE = format('appointment %s does not exist', target);
    END IF;
    target := NULL; -- swept after it was looked up: create the slot's appointment anew
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
  END IF;
  IF part.state IN ('RESERVED', 'REQUESTED', 'BOOKED') AND NOT made THEN
    IF part.customer_id IS NOT NULL AND EXISTS (
         SELECT 1 FROM participations x
          WHERE x.appointment_id = a.id AND x.customer_id = part.customer_id
            AND (x.state IN ('REQUESTED', 'BOOKED') OR (x.state = 'RESERVED' AND x.hold_until > p_now))) THEN
      RAISE EXCEPTION USING ERRCODE = 'BKDUP', MESSAGE = format('the customer already participates in appointment %s', a.reference);
    END IF;
    SELECT count(*)::int INTO live FROM participations x
     WHERE x.appointment_id = a.id AND (x.state IN ('REQUESTED', 'BOOKED') OR (x.state = 'RESERVED' AND x.hold_until > p_now));
    IF live >= a.capacity AND NOT p_ignore_capacity THEN
      RAISE EXCEPTION USING ERRCODE = 'BKFUL', MESSAGE = format('appointment %s has no free place (capacity %s)', a.reference, a.capacity);
    END IF;
  END IF;

  INSERT INTO participations (id, crm_id, provider_id, appointment_id, reference, customer_id, placeholder_id, state, hold_until,
                              client_ip, channel_key, message, locale, note)
  VALUES (COALESCE(part.id, gen_random_uuid()), part.crm_id, part.provider_id, a.id, part.reference, part.customer_id,
          COALESCE(part.placeholder_id, gen_random_uuid()), part.state, part.hold_until, part.client_ip, part.channel_key,
          part.message, part.locale, part.note)
  RETURNING * INTO part;
  RETURN QUERY SELECT to_jsonb(a), to_jsonb(part), live, made;
END $$;

-- 4. The hold sweeper in one statement: expired holds go, and with them the public flow's
--    appointments they leave empty. Each such appointment is locked before the emptiness check,
--    which runs as a statement of its own (a fresh snapshot): a reservation joining it right now
--    either committed first (its participation is seen, the appointment stays) or waits and then
--    finds the appointment gone and creates the slot's appointment anew (claim_place).
CREATE OR REPLACE FUNCTION sweep_expired_holds(p_now timestamptz, batch integer)
RETURNS TABLE (holds integer, appointments integer) LANGUAGE plpgsql AS $$
DECLARE
  emptied uuid[];
  aid uuid;
  removed integer := 0;
  n integer;
BEGIN
  WITH gone AS (
    DELETE FROM participations WHERE id IN (
      SELECT id FROM participations WHERE state = 'RESERVED' AND hold_until <= p_now
       ORDER BY hold_until LIMIT batch FOR UPDATE SKIP LOCKED)
    RETURNING appointment_id)
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

-- 5. RESERVED -> BOOKED of a hold that has expired takes its place anew (D10): the check and the
--    change under the appointment's lock in one statement, like claim_place. No row comes back when
--    the participation is no longer RESERVED (a concurrent change won).
CREATE OR REPLACE FUNCTION retake_place(p_participation uuid, p_now timestamptz, p_state text, p_message text)
RETURNS SETOF participations LANGUAGE plpgsql AS $$
DECLARE
  a appointments;
  live integer;
BEGIN
  SELECT x.* INTO a FROM appointments x JOIN participations p ON p.appointment_id = x.id WHERE p.id = p_participation FOR UPDATE OF x;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'BKGON', MESSAGE = 'the participation no longer exists';
  END IF;
  IF a.state <> 'ACTIVE' OR a.archived THEN
    RAISE EXCEPTION USING ERRCODE = 'BKCLO', MESSAGE = format('appointment %s is %s', a.reference, CASE WHEN a.state <> 'ACTIVE' THEN 'cancelled' ELSE 'archived' END);
  END IF;
  SELECT count(*)::int INTO live FROM participations x
   WHERE x.appointment_id = a.id AND x.id <> p_participation
     AND (x.state IN ('REQUESTED', 'BOOKED') OR (x.state = 'RESERVED' AND x.hold_until > p_now));
  IF live >= a.capacity THEN
    RAISE EXCEPTION USING ERRCODE = 'BKFUL', MESSAGE = format('appointment %s has no free place (capacity %s)', a.reference, a.capacity);
  END IF;
  RETURN QUERY UPDATE participations SET state = p_state, hold_until = NULL, message = COALESCE(p_message, message), updated_at = now()
    WHERE id = p_participation AND state = 'RESERVED' RETURNING *;
END $$;
