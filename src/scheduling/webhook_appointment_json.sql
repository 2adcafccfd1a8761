-- The appointment as events show it, capacityLeft as of now (live places: RESERVED with a live
-- hold, REQUESTED, BOOKED). PL/pgSQL, which keeps its plans for the session: a SQL function that
-- cannot be inlined is planned again with every statement that calls it (docs/decisions.md).
CREATE OR REPLACE FUNCTION webhook_appointment_json(p_appointment uuid) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT jsonb_build_object(
           'reference', a.reference, 'uuid', a.id,
           'start', webhook_iso(a.start_at, pv.time_zone), 'end', webhook_iso(a.end_at, pv.time_zone),
           'resourceReference', r.reference, 'productReference', pr.reference,
           'capacity', a.capacity,
           'capacityLeft', greatest(0, a.capacity - (SELECT count(*) FROM participations x
                                                     WHERE x.appointment_id = a.id
                                                       AND participation_is_live(x.state, x.hold_until, now()))))
    FROM appointments a
    JOIN providers pv ON pv.id = a.provider_id
    LEFT JOIN resources r ON r.id = a.resource_id
    LEFT JOIN products pr ON pr.id = a.product_id
   WHERE a.id = p_appointment);
END $$;
