-- Whether the partner uses this user as an account or provider owner, staff member or contact:
-- such a user is kept (anonymized) by an erasure, and left alone by the retention job.
CREATE OR REPLACE FUNCTION user_has_partner_role(p_user uuid) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM accounts WHERE owner_user_id = p_user)
      OR EXISTS (SELECT 1 FROM providers WHERE owner_user_id = p_user)
      OR EXISTS (SELECT 1 FROM provider_staff WHERE user_id = p_user)
      OR EXISTS (SELECT 1 FROM contact_profiles WHERE user_id = p_user)
      OR EXISTS (SELECT 1 FROM resources WHERE contact_user_id = p_user)
      OR EXISTS (SELECT 1 FROM appointments WHERE contact_user_id = p_user)
$$;
