-- The provider's customer who is the person booking (docs/api.md "Consumer rules", DESIGN 7.12):
-- a consumer is who their e-mail says (case-insensitive). In this order: a customer linked to the
-- person's user (p_user, when known) that has this e-mail or none; a customer with this e-mail (not
-- linked to another user, when p_user is given); a customer with no e-mail and this mobile
-- (same_phone), not linked to a user. A customer with another e-mail is another person, whatever
-- number it shares (a household may share one phone). NULL: none; the caller creates one. Erased
-- customers (docs/privacy.md) are nobody.
CREATE OR REPLACE FUNCTION matching_customer(p_provider uuid, p_user uuid, p_email text, p_mobile text, p_e164 text)
RETURNS SETOF customers LANGUAGE sql STABLE AS $$
  SELECT x.* FROM customers x
   WHERE x.provider_id = p_provider AND x.erased_at IS NULL
     AND ((x.user_id = p_user AND (x.email IS NULL OR lower(x.email) = lower(p_email)))
          OR (lower(x.email) = lower(p_email) AND (p_user IS NULL OR x.user_id IS NULL))
          OR (x.email IS NULL AND x.user_id IS NULL AND p_mobile IS NOT NULL AND same_phone(x.mobile_e164, x.mobile, p_e164, p_mobile)))
   ORDER BY CASE WHEN x.user_id = p_user THEN 0 WHEN lower(x.email) = lower(p_email) THEN 1 ELSE 2 END, x.created_at, x.id
   LIMIT 1
$$;
