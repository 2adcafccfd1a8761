-- Whether a text shows one of a person's data (docs/privacy.md): equal to one of the needles
-- (e-mail, mobile, names; case-insensitive), or containing one of at least 4 characters.
-- PL/pgSQL keeps its plan for the session (docs/decisions.md, "SQL functions the planner cannot inline").
CREATE OR REPLACE FUNCTION privacy_mentions(s text, needles text[]) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN s IS NOT NULL AND EXISTS (
    SELECT 1 FROM unnest(needles) n
     WHERE lower(s) = lower(n) OR (length(n) >= 4 AND strpos(lower(s), lower(n)) > 0));
END $$;
