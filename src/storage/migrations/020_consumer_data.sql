-- Migration 020: a consumer's data: export, erasure and retention (docs/privacy.md). Schema only;
-- the erasure itself is src/privacy/erase_personal_data.sql.

-- 1. When a participation's and a customer's personal data were erased. An erased participation
--    stays as an anonymous place (it keeps its state, so capacity is unchanged); its cancel and
--    manage links answer 404.
ALTER TABLE participations ADD COLUMN erased_at timestamptz;
ALTER TABLE customers ADD COLUMN erased_at timestamptz;

-- 2. The retention job (PERSONAL_DATA_RETENTION_DAYS) walks appointments by their end and looks
--    only at participations not yet erased; erased ones leave this index.
CREATE INDEX appointments_end_idx ON appointments (end_at, id);
CREATE INDEX participations_unerased_idx ON participations (appointment_id) WHERE erased_at IS NULL;

-- 3. The mails and webhook events about a participation, found without reading every row.
CREATE INDEX outbox_participation_idx ON outbox ((payload -> 'participation' ->> 'uuid'));
CREATE INDEX webhook_events_participation_idx ON webhook_events (crm_id, ((body::jsonb) #>> '{data,participation,uuid}'));

-- 4. A consumer's customers across the crm's providers, by e-mail or mobile.
CREATE INDEX customers_crm_email_idx ON customers (crm_id, lower(email)) WHERE email IS NOT NULL;
CREATE INDEX customers_crm_mobile_idx ON customers (crm_id, mobile) WHERE mobile IS NOT NULL;

-- 5. The mails to a person, by address (erasure drops them; the export lists them).
CREATE INDEX outbox_recipient_idx ON outbox (crm_id, lower(recipient));

-- 6. A user's roles and customers, found by the user: the retention job checks (user_has_partner_role)
--    and deletes users a batch at a time, and each deletion's foreign keys look for the
--    appointments (contact) and customers referring to it; without these both read the whole table
--    for every user (about 30 s a batch of 200 beside 118,000 appointments and customers).
CREATE INDEX appointments_contact_user_idx ON appointments (contact_user_id) WHERE contact_user_id IS NOT NULL;
CREATE INDEX customers_user_id_idx ON customers (user_id) WHERE user_id IS NOT NULL;
CREATE INDEX provider_staff_user_idx ON provider_staff (user_id);
