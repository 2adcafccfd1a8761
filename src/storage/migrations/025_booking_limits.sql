-- Migration 025: booking limits (issue 53, DESIGN 7.11, docs/api.md "Booking limits").
-- Schema only; the rules are in booking/bookingLimits.ts (A1), scheduling/check_booking_limits.sql (the
-- kernel's check, called by claim_place) and booking/consumerLimit.ts (A3).

-- 1. A resource's limits: live participations in its current appointments that start on one date or
--    in one ISO week, in the provider's zone. NULL: none.
ALTER TABLE resources
  ADD COLUMN booking_limit_per_day integer CHECK (booking_limit_per_day > 0),
  ADD COLUMN booking_limit_per_week integer CHECK (booking_limit_per_week > 0);

-- 2. A provider's limit of upcoming REQUESTED or BOOKED participations per consumer (by e-mail). NULL: none.
ALTER TABLE providers
  ADD COLUMN max_upcoming_bookings_per_consumer integer CHECK (max_upcoming_bookings_per_consumer > 0);

-- 3. The kernel counts a limited resource's appointments by their start (one date, one week).
CREATE INDEX appointments_resource_start_idx ON appointments (resource_id, start_at);

-- 4. claim_place takes p_moving (the participation a reschedule moves, not counted against the limits):
--    the definition with the old signature goes, else a call naming its parameters would be ambiguous.
DROP FUNCTION IF EXISTS claim_place(jsonb, timestamptz, uuid, jsonb, uuid, boolean, text, integer);
