-- A free text (an SMTP or webhook receiver's error) with every occurrence of the needles replaced
-- by [erased], case-insensitively; every character but letters, digits and spaces is escaped, so
-- a needle is matched literally.
CREATE OR REPLACE FUNCTION privacy_scrub_text(s text, needles text[]) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  n text;
BEGIN
  IF s IS NULL THEN
    RETURN NULL;
  END IF;
  FOREACH n IN ARRAY COALESCE(needles, '{}') LOOP
    s := regexp_replace(s, regexp_replace(n, '([^[:alnum:][:space:]])', '\\\1', 'g'), '[erased]', 'gi');
  END LOOP;
  RETURN s;
END $$;
