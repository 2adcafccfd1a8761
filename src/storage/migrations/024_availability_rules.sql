-- Migration 024: availability rules, opening hours that keep a resource's timeslots published (issue
-- 54, DESIGN.md §7.14). Schema only; the module and its SQL live in src/availability/.

-- A rule: on each listed ISO weekday from valid_from to valid_until (both included; NULL: open-ended)
-- one timeslot per window, wall-clock times of the provider's zone.
CREATE TABLE availability_rules (
  id                      uuid PRIMARY KEY,
  crm_id                  text NOT NULL,
  provider_id             uuid NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
  resource_id             uuid NOT NULL REFERENCES resources (id) ON DELETE CASCADE,
  reference               text NOT NULL,
  -- ISO weekdays 1 (Monday) .. 7 (Sunday), ascending
  weekdays                smallint[] NOT NULL,
  -- [{"from": "HH:mm", "to": "HH:mm" or "24:00"}], ascending, not overlapping
  windows                 jsonb NOT NULL,
  raster                  integer NOT NULL CHECK (raster > 0),
  default_capacity        integer NOT NULL CHECK (default_capacity >= 0),
  default_accept_bookings boolean NOT NULL,
  state                   text NOT NULL CHECK (state IN ('CREATED', 'BOOKABLE')),
  valid_from              date NOT NULL,
  valid_until             date CHECK (valid_until >= valid_from),
  -- the last date whose timeslots are made (the provider's zone), and when the horizon job should
  -- carry it forward next (NULL: never again, valid_until is reached)
  published_until         date NOT NULL,
  next_extend_at          timestamptz,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider_id, reference)
);
CREATE INDEX availability_rules_due_idx ON availability_rules (next_extend_at) WHERE next_extend_at IS NOT NULL;
CREATE INDEX availability_rules_resource_idx ON availability_rules (resource_id);

-- The rule a timeslot was made by (NULL: a one-off timeslot of D1, or one a deleted rule left behind).
-- One timeslot per rule and start: the horizon job's inserts are idempotent whatever the race.
ALTER TABLE timeslots ADD COLUMN rule_id uuid REFERENCES availability_rules (id) ON DELETE SET NULL;
CREATE UNIQUE INDEX timeslots_rule_start_key ON timeslots (rule_id, start_at) WHERE rule_id IS NOT NULL;

-- Removing timeslots sets their appointments' timeslot_id to NULL, and a rule change asks which
-- appointments were booked from its timeslots: both find them by this index, not by a scan.
CREATE INDEX appointments_timeslot_idx ON appointments (timeslot_id) WHERE timeslot_id IS NOT NULL;
