-- Migration 023: who the consumer is (issue 51, docs/api.md "Consumer rules"): phone numbers
-- compared in E.164, the "my bookings" mails, and iCalendar SEQUENCE as a small counter per UID.
-- Schema and carried-over values only; the rules are in partners/phoneNumbers.ts,
-- scheduling/matching_customer.sql and notifications/compose.ts.

-- 1. Phone numbers: kept as typed (mobile) for display, compared in E.164 (mobile_e164). Numbers no
--    country could have, and rows written before this migration, have mobile_e164 NULL. The
--    service fills the old rows itself (partners/phoneNumbers.ts fillPhoneNumbers: a job at start
--    and every few minutes, with the phone-number library; SQL cannot read phone numbers as it
--    does); until a row is filled, comparisons fall back to the text as stored (same_phone.sql).
ALTER TABLE users ADD COLUMN mobile_e164 text;
ALTER TABLE customers ADD COLUMN mobile_e164 text;
CREATE INDEX users_crm_mobile_e164_idx ON users (crm_id, mobile_e164) WHERE mobile_e164 IS NOT NULL;
CREATE INDEX customers_crm_mobile_e164_idx ON customers (crm_id, mobile_e164) WHERE mobile_e164 IS NOT NULL;
CREATE INDEX customers_provider_mobile_e164_idx ON customers (provider_id, mobile_e164) WHERE mobile_e164 IS NOT NULL;
CREATE INDEX customers_provider_email_idx ON customers (provider_id, lower(email)) WHERE email IS NOT NULL;
-- the rows the fill job still has to read
CREATE INDEX users_mobile_unread_idx ON users (id) WHERE mobile IS NOT NULL AND mobile_e164 IS NULL;
CREATE INDEX customers_mobile_unread_idx ON customers (id) WHERE mobile IS NOT NULL AND mobile_e164 IS NULL;

-- 2. "My bookings" mails to one address within the last hour (at most 3), found without reading
--    every mail.
CREATE INDEX outbox_my_bookings_idx ON outbox (lower(recipient)) WHERE template = 'my-bookings';

-- 3. iCalendar SEQUENCE: a counter per UID, 0 for an invite's first version, one higher with every
--    change. Mails (UID per participation) continue from the largest SEQUENCE they carried: the
--    Unix seconds of earlier versions, kept in mail_calendar_sequences since migration 017, in the
--    payload of every mail in the outbox, and in participations.ics_sequence after a reschedule.
--    Those stay large; a calendar only needs each update to be above the last one it got.
INSERT INTO mail_calendar_sequences AS m (participation_id, sequence)
SELECT p.id, s.sequence
  FROM (SELECT o.payload -> 'participation' ->> 'uuid' AS participation, max((o.payload ->> 'sequence')::bigint) AS sequence
          FROM outbox o
         WHERE o.payload ? 'icsUid' AND jsonb_typeof(o.payload -> 'sequence') = 'number'
         GROUP BY 1) s
  JOIN participations p ON p.id::text = s.participation
ON CONFLICT (participation_id) DO UPDATE SET sequence = GREATEST(m.sequence, EXCLUDED.sequence);
INSERT INTO mail_calendar_sequences AS m (participation_id, sequence)
SELECT id, ics_sequence FROM participations WHERE ics_sequence IS NOT NULL
ON CONFLICT (participation_id) DO UPDATE SET sequence = GREATEST(m.sequence, EXCLUDED.sequence);

--    Feeds and the CalDAV write-back share one UID per appointment and now one counter
--    (calendar_event_sequences). Before migration 017 a feed served an event with the seconds from
--    its creation to its latest change; appointments that no feed has served since keep that number
--    (the next change raises it), every other appointment starts at 0. The write-back, which sent no
--    SEQUENCE so far, records which content it wrote last.
INSERT INTO calendar_event_sequences (appointment_id, sequence, content_digest)
SELECT a.id, floor(extract(epoch FROM GREATEST(a.updated_at, max(p.updated_at)) - a.created_at))::integer, ''
  FROM appointments a LEFT JOIN participations p ON p.appointment_id = a.id AND p.state <> 'RESERVED'
 WHERE NOT EXISTS (SELECT 1 FROM calendar_event_sequences s WHERE s.appointment_id = a.id)
 GROUP BY a.id
HAVING floor(extract(epoch FROM GREATEST(a.updated_at, max(p.updated_at)) - a.created_at)) >= 1;
ALTER TABLE calendar_event_sequences ADD COLUMN written_digest text;
ALTER TABLE calendar_event_sequences ALTER COLUMN content_digest DROP NOT NULL;
