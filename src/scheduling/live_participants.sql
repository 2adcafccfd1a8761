-- A2's answer lists the appointment's live participations (ids and states), which
-- took a statement of its own after the place was claimed. This function reads them in the claim's
-- statement (scheduling/claimPlace.ts): VOLATILE, so it reads with a snapshot of its own, taken
-- after claim_place inserted the new participation, and sees it with every other committed one.
CREATE OR REPLACE FUNCTION live_participants(p_appointment uuid, p_now timestamptz) RETURNS json
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN (SELECT COALESCE(json_agg(json_build_object('id', x.id, 'placeholder_id', x.placeholder_id, 'state', x.state) ORDER BY x.created_at, x.id), '[]'::json)
            FROM participations x
           WHERE x.appointment_id = p_appointment AND participation_is_live(x.state, x.hold_until, p_now));
END $$;
