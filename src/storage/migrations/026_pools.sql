-- Migration 026: pools, "whoever is free" (issue 53, DESIGN 7.11, docs/pools.md). Schema only; the
-- partner API is in src/pools/, the assignment (claim_pool_place) in src/booking/.

-- A pool groups resources of one provider; the public flow books the pool and the service assigns a
-- member. Its reference is unique in the crm and is no resource reference of the crm
-- (pools/pool_reference_guard.sql).
CREATE TABLE pools (
  id          uuid PRIMARY KEY,
  crm_id      text NOT NULL,
  provider_id uuid NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
  reference   text NOT NULL,
  public_name text NOT NULL,
  description text,
  assignment  text NOT NULL CHECK (assignment IN ('LEAST_RECENTLY_BOOKED', 'BALANCED', 'PRIORITY')),
  -- counts the pool's changes: A1 keys its cached listing of the pool by it
  version     bigint NOT NULL DEFAULT 0,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (crm_id, reference)
);
CREATE INDEX pools_provider_idx ON pools (provider_id);

-- The members in the partner's order (position: ties of every rule go to the earlier member).
-- last_booked: pool_booking_seq's value at the member's last booking through the pool (an A3 that
-- made a REQUESTED or BOOKED participation); NULL: never booked through it.
CREATE TABLE pool_members (
  pool_id     uuid NOT NULL REFERENCES pools (id) ON DELETE CASCADE,
  resource_id uuid NOT NULL REFERENCES resources (id) ON DELETE CASCADE,
  position    integer NOT NULL,
  priority    smallint NOT NULL CHECK (priority BETWEEN 0 AND 4),
  last_booked bigint,
  PRIMARY KEY (pool_id, resource_id)
);
CREATE INDEX pool_members_resource_idx ON pool_members (resource_id);

-- Bookings through pools are numbered in the order they commit their claim: "least recently booked"
-- needs an order that a clock standing still (a test clock, two bookings in one millisecond) keeps.
CREATE SEQUENCE pool_booking_seq;

-- The pool a public booking was made through (webhooks' poolReference, reschedule within the pool).
ALTER TABLE participations ADD COLUMN pool_id uuid REFERENCES pools (id) ON DELETE SET NULL;
CREATE INDEX participations_pool_idx ON participations (pool_id) WHERE pool_id IS NOT NULL;
