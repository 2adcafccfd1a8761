-- The one rule for a live participation, the one that holds a place: REQUESTED and BOOKED do, and
-- RESERVED does while its hold lasts (hold_until later than p_at). An expired hold counts for
-- nothing, swept or not. Every SQL function that counts places uses it, and so does the TypeScript
-- (scheduling/capacity.ts, isLiveSql).
--
-- LANGUAGE sql and IMMUTABLE, a single expression: the planner inlines it, so a count over
-- participations_appointment_idx (appointment_id) INCLUDE (state, hold_until) stays an index-only
-- scan (docs/decisions.md, "One rule for live").
CREATE OR REPLACE FUNCTION participation_is_live(p_state text, p_hold_until timestamptz, p_at timestamptz) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT p_state IN ('REQUESTED', 'BOOKED') OR (p_state = 'RESERVED' AND p_hold_until > p_at)
$$;
