-- The one rule for a current appointment: ACTIVE and not archived. A cancelled or archived one
-- shows nowhere and blocks nothing. Every query that asks uses it, and so does the TypeScript
-- (scheduling/capacity.ts, appointmentIsCurrentSql).
--
-- LANGUAGE sql and IMMUTABLE, a single expression: the planner inlines it, so the partial indexes
-- and the exclusion constraint written with the same condition still match.
CREATE OR REPLACE FUNCTION appointment_is_current(p_state text, p_archived boolean) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT p_state = 'ACTIVE' AND NOT p_archived
$$;
