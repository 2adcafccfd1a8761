-- Migration 011: participations found by their appointment through one index, for every state, with
-- the live count answered from the index alone.
--
-- 1. A1 counts each listed appointment's live places (REQUESTED, BOOKED, RESERVED with a live hold)
--    and finds its next hold expiry. Before, each count fetched every participation row from the
--    heap, scattered over as many pages as the participations were made at different times (nine
--    buffers an appointment, 5,000 for a listing of 560). With state and hold_until in the index,
--    an index-only scan answers wherever the visibility map is current (all that vacuum has seen).
-- 2. The index covered live states only (RESERVED, REQUESTED, BOOKED). The calendar feed reads an
--    appointment's CANCELED and BOOKED participations alike (its LAST-MODIFIED moves on a
--    cancellation), and deleting an appointment cascades to all of its participations: both had no
--    index to use and read the whole participations table each time (27 ms for a feed of 150
--    events beside 80,000 participations, 3.4 ms with this index).
-- One index replaces the partial one, so a write maintains no extra index.
DROP INDEX participations_appointment_idx;
CREATE INDEX participations_appointment_idx ON participations (appointment_id) INCLUDE (state, hold_until);
