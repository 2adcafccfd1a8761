-- The one rule for an appointment that still takes its time on its resource (DESIGN 7.9): it is
-- current (appointment_is_current), and either the partner made it or a participation of it holds
-- a place (p_holds_a_place: the caller counts with participation_is_live at its own clock). An
-- appointment of the public flow that no participation holds blocks nothing, lists nothing and
-- leaves the feed, as if it had never been booked.
--
-- A single expression, inlined by the planner like participation_is_live.
CREATE OR REPLACE FUNCTION appointment_takes_time(p_state text, p_archived boolean, p_created_by_public_flow boolean, p_holds_a_place boolean)
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT appointment_is_current(p_state, p_archived) AND (p_holds_a_place OR NOT p_created_by_public_flow)
$$;
