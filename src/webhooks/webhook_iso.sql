-- ISO 8601 in the zone with its offset and no fraction, as the API answers instants (2026-06-01T10:00:00+02:00).
CREATE OR REPLACE FUNCTION webhook_iso(ts timestamptz, zone text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT to_char(ts AT TIME ZONE zone, 'YYYY-MM-DD"T"HH24:MI:SS')
         || CASE WHEN o < interval '0' THEN '-' ELSE '+' END
         || to_char(CASE WHEN o < interval '0' THEN -o ELSE o END, 'HH24:MI')
    FROM (SELECT date_trunc('second', ts AT TIME ZONE zone) - date_trunc('second', ts AT TIME ZONE 'UTC') AS o) x
$$;
