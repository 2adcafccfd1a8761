-- Whether a stored number (x_e164, x_mobile) is the number asked for (p_e164, p_mobile), as
-- partners/phoneNumbers.ts reads them (DESIGN 7.12): equal in E.164; where either side has no
-- E.164 form (no country could have it, or the row is not read yet: migration 023), equal as typed.
-- Plain SQL, so the planner inlines it and the (…, mobile_e164) and (…, mobile) indexes serve it.
CREATE OR REPLACE FUNCTION same_phone(x_e164 text, x_mobile text, p_e164 text, p_mobile text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT x_e164 = p_e164 OR ((x_e164 IS NULL OR p_e164 IS NULL) AND x_mobile = p_mobile)
$$;
