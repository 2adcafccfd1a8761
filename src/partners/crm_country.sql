-- The country a crm's phone numbers are read for where no provider is at hand (its users; a data
-- request by mobile): the one country of its accounts' invoice addresses, else DE.
-- PL/pgSQL keeps its plan for the session (docs/decisions.md, "SQL functions the planner cannot inline").
CREATE OR REPLACE FUNCTION crm_country(p_crm text) RETURNS text LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT CASE WHEN count(DISTINCT upper(a.invoice_address ->> 'countryCode')) = 1 THEN min(upper(a.invoice_address ->> 'countryCode')) ELSE 'DE' END
    FROM accounts a WHERE a.crm_id = p_crm AND a.invoice_address ->> 'countryCode' IS NOT NULL);
END $$;
