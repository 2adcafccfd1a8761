-- Migration 017: iCalendar SEQUENCE that rises with every change, also with several changes in one second
-- (issue 34). Schema only: two tables the application reads and writes; no functions, no triggers.

-- Calendar feeds: the SEQUENCE each appointment's VEVENT was last served with, and a digest of what
-- it showed then. A render whose content for the appointment differs takes the next number.
CREATE TABLE calendar_event_sequences (
  appointment_id uuid PRIMARY KEY REFERENCES appointments (id) ON DELETE CASCADE,
  sequence integer NOT NULL,
  content_digest text NOT NULL
);

-- Mails: the SEQUENCE of the latest calendar part (REQUEST or CANCEL) about a participation.
CREATE TABLE mail_calendar_sequences (
  participation_id uuid PRIMARY KEY REFERENCES participations (id) ON DELETE CASCADE,
  sequence bigint NOT NULL
);
