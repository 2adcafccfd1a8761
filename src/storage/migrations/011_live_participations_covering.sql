-- Migration 011: live places counted from the index alone.
--
-- A1 counts each listed appointment's live places (REQUESTED, BOOKED, RESERVED with a live hold)
-- and finds its next hold expiry: before, each count fetched every participation row from the heap,
-- scattered over as many pages as the participations were made at different times (nine buffers an
-- appointment, 5,000 for a listing of 560). With state and hold_until in the index, an index-only
-- scan answers wherever the table's visibility map is current (everything autovacuum has seen):
-- the same index, the same predicate, so every other user of it (claim_place's count) is served as
-- before, and a write maintains no extra index.
DROP INDEX participations_appointment_idx;
CREATE INDEX participations_appointment_idx ON participations (appointment_id) INCLUDE (state, hold_until)
  WHERE state IN ('RESERVED', 'REQUESTED', 'BOOKED');
