-- Whether an appointment holds its date against a rule change (DESIGN.md §7.14): it is live and
-- either the partner's own or holds a live participation (a hold while it lasts, REQUESTED,
-- BOOKED: participation_is_live at p_at). A public-flow appointment left with no live participation
-- holds nothing (freed time, DESIGN.md §7.9).
CREATE OR REPLACE FUNCTION appointment_is_held(a appointments, p_at timestamptz) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT a.state = 'ACTIVE' AND NOT a.archived
     AND (NOT a.created_by_public_flow
          OR EXISTS (SELECT 1 FROM participations p
                      WHERE p.appointment_id = a.id AND participation_is_live(p.state, p.hold_until, p_at)))
$$;
