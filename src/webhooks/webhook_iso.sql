-- ISO 8601 in the zone with its offset and no fraction, as the API answers instants (2026-06-01T10:00:00+02:00).
-- PL/pgSQL keeps its plans for the session; a SQL function that cannot be inlined is planned again
-- with every statement that calls it (docs/decisions.md, "SQL functions the planner cannot inline").
CREATE OR REPLACE FUNCTION webhook_iso(ts timestamptz, zone text) RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  o interval := date_trunc('second', ts AT TIME ZONE zone) - date_trunc('second', ts AT TIME ZONE 'UTC');
BEGIN
  RETURN to_char(ts AT TIME ZONE zone, 'YYYY-MM-DD"T"HH24:MI:SS')
         || CASE WHEN o < interval '0' THEN '-' ELSE '+' END
         || to_char(CASE WHEN o < interval '0' THEN -o ELSE o END, 'HH24:MI');
END $$;
