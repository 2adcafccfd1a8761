-- The live holds of one client address (MAX_HOLDS_PER_IP), counted under an advisory lock per
-- address held to the end of the transaction, so concurrent holds of one address are counted in turn.
CREATE OR REPLACE FUNCTION public_live_holds(ip text, at timestamptz) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(727005, hashtext($1));
  RETURN (SELECT count(*)::int FROM participations WHERE state = 'RESERVED' AND hold_until > $2 AND client_ip = $1);
END $$;
