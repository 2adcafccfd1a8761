-- The per-address hold cap (public_live_holds) counts one client's live holds on every reservation;
-- without this index it walks every live hold of every client.
CREATE INDEX IF NOT EXISTS participations_client_holds_idx ON participations (client_ip, hold_until) WHERE state = 'RESERVED';
