-- A resource's listing version: the changes ever committed for it, the rows of listing_changes
-- plus what compaction folded into listing_change_totals. It only grows, with every commit that
-- touches the resource, so a cached listing checked against it is never served after a change
-- became visible. PL/pgSQL so its plan is kept per session instead of planned at every call.
CREATE OR REPLACE FUNCTION listing_version(rid uuid) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN COALESCE((SELECT total FROM listing_change_totals WHERE resource_id = rid), 0)
       + (SELECT count(*) FROM listing_changes WHERE resource_id = rid);
END $$;
