-- Whether a timeslot must stay as it is when its rule changes (DESIGN.md §7.14): an appointment
-- that meets it (timeslot_appointments.sql) is live and either the partner's own or holds a live
-- participation (a hold while it lasts, REQUESTED, BOOKED: participation_is_live at p_at). A
-- public-flow appointment left with no live participation holds nothing (freed time, DESIGN.md §7.9).
CREATE OR REPLACE FUNCTION timeslot_is_taken(p_timeslot uuid, p_resource uuid, p_from timestamptz, p_until timestamptz,
                                             p_at timestamptz)
RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (
    SELECT 1 FROM appointments a
     WHERE a.id IN (SELECT timeslot_appointments(p_timeslot, p_resource, p_from, p_until))
       AND a.state = 'ACTIVE' AND NOT a.archived
       AND (NOT a.created_by_public_flow
            OR EXISTS (SELECT 1 FROM participations p
                        WHERE p.appointment_id = a.id AND participation_is_live(p.state, p.hold_until, p_at))))
$$;
