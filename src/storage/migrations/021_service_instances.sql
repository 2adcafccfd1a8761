-- Migration 021: the service instances running on this database, each renewing its row while it
-- runs (storage/instanceLease.ts). An instance that finds no other may answer a cached listing
-- without asking the database whether it changed: every change then goes through it.
CREATE TABLE service_instances (
  id uuid PRIMARY KEY,
  expires_at timestamptz NOT NULL
) WITH (fillfactor = 50);
