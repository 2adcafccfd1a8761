-- A JSON document with every string that shows one of the needles (privacy_mentions) made null:
-- stored mail payloads and webhook bodies keep their shape and lose the person's data.
CREATE OR REPLACE FUNCTION privacy_scrub_json(v jsonb, needles text[]) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  CASE jsonb_typeof(v)
    WHEN 'object' THEN
      RETURN COALESCE((SELECT jsonb_object_agg(k, privacy_scrub_json(x, needles)) FROM jsonb_each(v) AS e(k, x)), '{}'::jsonb);
    WHEN 'array' THEN
      RETURN COALESCE((SELECT jsonb_agg(privacy_scrub_json(x, needles) ORDER BY i) FROM jsonb_array_elements(v) WITH ORDINALITY AS a(x, i)), '[]'::jsonb);
    WHEN 'string' THEN
      RETURN CASE WHEN privacy_mentions(v #>> '{}', needles) THEN 'null'::jsonb ELSE v END;
    ELSE
      RETURN v;
  END CASE;
END $$;
