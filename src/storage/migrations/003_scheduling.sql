-- The note of a participation given inline with an appointment (D6), shown in D5.
ALTER TABLE participations ADD COLUMN note text;
-- D6 inline participations and the public flow find a provider's customer by email.
CREATE INDEX customers_email_idx ON customers (provider_id, lower(email)) WHERE email IS NOT NULL;
