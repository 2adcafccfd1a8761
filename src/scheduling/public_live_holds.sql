-- The live holds of one client (MAX_HOLDS_PER_IP), counted in the caller's statement's fresh snapshot
-- (READ COMMITTED), without any lock: holds of the same client in flight in other transactions are
-- not seen, so concurrent claims of one client never wait for one another's commit. The cap is an
-- abuse limit, not an exact count: at any moment a client has at most MAX_HOLDS_PER_IP - 1 + C live
-- holds, C being the most claims of that client in flight at once (each instance runs at most
-- DATABASE_POOL_SIZE statements at a time; docs/deploy.md, docs/decisions.md). `ip` is the client's
-- key (booking/clientKey.ts): an IPv4 address, or an IPv6 network of IPV6_PREFIX_LENGTH bits.
CREATE OR REPLACE FUNCTION public_live_holds(ip text, at timestamptz) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN (SELECT count(*)::int FROM participations WHERE state = 'RESERVED' AND hold_until > $2 AND client_ip = $1);
END $$;
