-- The country a provider's phone numbers are read for (partners/phoneNumbers.ts, DESIGN 7.12): the
-- resource's address countryCode, else the provider's account's invoice address countryCode, else DE.
-- PL/pgSQL keeps its plan for the session (docs/decisions.md, "SQL functions the planner cannot inline").
CREATE OR REPLACE FUNCTION provider_country(p_provider uuid, p_resource uuid) RETURNS text LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN COALESCE(
    (SELECT upper(r.address ->> 'countryCode') FROM resources r WHERE r.id = p_resource AND jsonb_typeof(r.address) = 'object'),
    (SELECT upper(a.invoice_address ->> 'countryCode') FROM providers p JOIN accounts a ON a.id = p.account_id WHERE p.id = p_provider),
    'DE');
END $$;
