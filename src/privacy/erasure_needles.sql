-- What shows the person of one participation being erased (erase_personal_data): the given
-- needles, its customer's name, e-mail and mobile, and the data of its customer's user when the
-- erasure takes that user too. The retention job erases many people a batch: scrubbing each mail
-- and webhook event against its own person's data, not the whole batch's, keeps a batch's cost
-- in proportion to its size. PL/pgSQL keeps its plan for the session (docs/decisions.md, "SQL
-- functions the planner cannot inline").
CREATE OR REPLACE FUNCTION erasure_needles(p_participation uuid, p_users uuid[], p_needles text[]) RETURNS text[] LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT COALESCE(array_agg(DISTINCT x), '{}') FROM (
    SELECT unnest(p_needles) AS x
    UNION ALL
    SELECT unnest(ARRAY[c.email, c.mobile, c.user_name, u.email, u.username, u.first_name, u.last_name, u.phone, u.mobile])
      FROM participations p JOIN customers c ON c.id = p.customer_id LEFT JOIN users u ON u.id = c.user_id AND u.id = ANY (p_users)
     WHERE p.id = p_participation
  ) s WHERE length(btrim(x)) >= 2 AND x <> '—');
END $$;
