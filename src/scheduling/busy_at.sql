-- Whether [p_from, p_until) meets a busy time of the resource: one of its own or one of its
-- provider's that covers every resource (busy_times.resource_id NULL). Touching is fine. claim_place
-- asks it under the statement that takes the place, so the check and the take are one step.
-- PL/pgSQL keeps its plan for the session (docs/decisions.md, "SQL functions the planner cannot inline").
CREATE OR REPLACE FUNCTION busy_at(p_provider uuid, p_resource uuid, p_from timestamptz, p_until timestamptz)
RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM busy_times b
                  WHERE b.provider_id = p_provider AND (b.resource_id IS NULL OR b.resource_id = p_resource)
                    AND tstzrange(b.start_at, b.end_at) && tstzrange(p_from, p_until));
END $$;
