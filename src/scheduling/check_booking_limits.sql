-- A resource's booking limits (DESIGN 7.11, docs/api.md "Booking limits"), checked by claim_place
-- for the public flow (A2, A3, reschedule) before it takes a place in an appointment of p_resource
-- that starts at p_start: the live participations (participation_is_live) in the resource's current
-- appointments (appointment_is_current) that start on the same date, or in the same ISO week
-- (Monday to Sunday), in the provider's zone must be fewer than perDay / perWeek. p_moving, the
-- participation a reschedule moves, is not counted: a move within the day or week changes no count.
--
-- Under any number of concurrent claims and instances: a transaction-scoped advisory lock per
-- (resource, date) and per (resource, week) is taken first and the count runs after it, in a
-- statement of its own (a fresh snapshot), so it sees every claim of the same day or week that
-- committed before; the lock is held until this claim commits. Claims of other resources, days and
-- weeks never wait, and a resource without limits takes no lock. Lock order: the appointment's row
-- (claim_place) before the day before the week, in every transaction that takes them.
--
-- Refused with SQLSTATE BKLIM; its DETAIL is JSON {"period": "day"|"week", "value": "2026-06-02" |
-- "2026-W23", "from": local date, "to": local date (inclusive), "max": the limit, "zone"}: the caller words it.
CREATE OR REPLACE FUNCTION check_booking_limits(p_resource uuid, p_start timestamptz, p_now timestamptz, p_moving uuid)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  per_day integer;
  per_week integer;
  zone text;
  local_start timestamp;
  first_day date;
  days integer;
  period text;
  label text;
  max integer;
  taken integer;
BEGIN
  SELECT r.booking_limit_per_day, r.booking_limit_per_week, p.time_zone INTO per_day, per_week, zone
    FROM resources r JOIN providers p ON p.id = r.provider_id WHERE r.id = p_resource;
  IF per_day IS NULL AND per_week IS NULL THEN
    RETURN;
  END IF;
  local_start := p_start AT TIME ZONE zone;
  FOREACH period IN ARRAY ARRAY['day', 'week'] LOOP
    max := CASE period WHEN 'day' THEN per_day ELSE per_week END;
    CONTINUE WHEN max IS NULL;
    IF period = 'day' THEN
      first_day := local_start::date;
      days := 1;
      label := to_char(first_day, 'YYYY-MM-DD');
    ELSE
      first_day := date_trunc('week', local_start)::date; -- ISO weeks start on Monday
      days := 7;
      label := to_char(local_start, 'IYYY-"W"IW');
    END IF;
    PERFORM pg_advisory_xact_lock(CASE period WHEN 'day' THEN 727030 ELSE 727031 END,
                                  hashtext(p_resource || ' ' || label));
    SELECT count(*)::int INTO taken
      FROM appointments a JOIN participations x ON x.appointment_id = a.id
     WHERE a.resource_id = p_resource
       AND a.start_at >= first_day::timestamp AT TIME ZONE zone
       AND a.start_at < (first_day + days)::timestamp AT TIME ZONE zone
       AND appointment_is_current(a.state, a.archived)
       AND participation_is_live(x.state, x.hold_until, p_now)
       AND x.id IS DISTINCT FROM p_moving;
    IF taken >= max THEN
      RAISE EXCEPTION USING ERRCODE = 'BKLIM',
        MESSAGE = format('the resource has %s bookings in the %s %s (%s), its limit is %s',
                         taken, period, label, zone, max),
        DETAIL = json_build_object('period', period, 'value', label, 'from', first_day, 'to', first_day + days - 1,
                                   'max', max, 'zone', zone)::text;
    END IF;
  END LOOP;
END $$;
