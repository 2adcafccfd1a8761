-- Appointments the public booking flow created from a timeslot (A2/A3). The hold sweeper deletes
-- such an appointment once its last expired hold is gone and it never had any other participation,
-- so an abandoned reservation leaves nothing behind that blocks the slot.
ALTER TABLE appointments ADD COLUMN created_by_public_flow boolean NOT NULL DEFAULT false;
-- The sweeper looks only at upcoming ones: a past empty appointment blocks nothing.
CREATE INDEX appointments_public_flow_idx ON appointments (end_at) WHERE created_by_public_flow;
