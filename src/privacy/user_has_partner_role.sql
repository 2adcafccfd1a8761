-- Whether the partner uses this user as an account or provider owner, staff member or contact:
-- such a user is kept (anonymized) by an erasure, and left alone by the retention job.
-- PL/pgSQL planned for each user (force_custom_plan): a plan for any user (a SQL function's, or a
-- generic one) expects a resource contact's thousands of appointments and reads the whole
-- appointments table to find none (56 ms a user beside 118,000 appointments, 0.2 ms with the index).
CREATE OR REPLACE FUNCTION user_has_partner_role(p_user uuid) RETURNS boolean LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM accounts WHERE owner_user_id = p_user)
      OR EXISTS (SELECT 1 FROM providers WHERE owner_user_id = p_user)
      OR EXISTS (SELECT 1 FROM provider_staff WHERE user_id = p_user)
      OR EXISTS (SELECT 1 FROM contact_profiles WHERE user_id = p_user)
      OR EXISTS (SELECT 1 FROM resources WHERE contact_user_id = p_user)
      OR EXISTS (SELECT 1 FROM appointments WHERE contact_user_id = p_user);
END $$;
