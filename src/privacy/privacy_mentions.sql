-- Whether a text shows one of a person's data (docs/privacy.md): equal to one of the needles
-- (e-mail, mobile, names; case-insensitive), or containing one of at least 4 characters.
CREATE OR REPLACE FUNCTION privacy_mentions(s text, needles text[]) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT s IS NOT NULL AND EXISTS (
    SELECT 1 FROM unnest(needles) n
     WHERE lower(s) = lower(n) OR (length(n) >= 4 AND strpos(lower(s), lower(n)) > 0))
$$;
