-- Migration 018: busy times from outside (issue 33, DESIGN.md §7.6). Schema only; the functions and
-- triggers that use these tables are repeatable definitions beside their callers (src/calendars/*.sql).

-- Calendars a provider's busy times are read from: an iCalendar URL or a CalDAV collection.
-- url, username and password are never listed (only host is).
CREATE TABLE calendar_subscriptions (
  id              uuid PRIMARY KEY,
  crm_id          text NOT NULL,
  provider_id     uuid NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
  -- NULL: every resource of the provider, also later ones
  resource_id     uuid REFERENCES resources (id) ON DELETE CASCADE,
  kind            text NOT NULL CHECK (kind IN ('ics', 'caldav')),
  host            text NOT NULL,
  url             text NOT NULL,
  username        text,
  password        text,
  status          text NOT NULL DEFAULT 'OK' CHECK (status IN ('OK', 'ERROR')),
  last_error      text,
  failing_since   timestamptz,
  last_synced_at  timestamptz,
  -- the refresh job's schedule; a running read pushes it ahead as its lease
  next_sync_at    timestamptz NOT NULL,
  -- conditional reads: ETag / Last-Modified (ics), ctag / sync-token (caldav)
  etag            text,
  last_modified   text,
  ctag            text,
  sync_token      text,
  -- digest of the busy intervals last stored: an unchanged calendar rewrites nothing
  busy_digest     text,
  busy_count      integer NOT NULL DEFAULT 0,
  -- how far ahead the stored busy times reach: an unchanged calendar is read whole again once the
  -- 400-day horizon has moved a day past it, so recurrences keep coming into view
  expanded_until  timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX calendar_subscriptions_provider_idx ON calendar_subscriptions (provider_id);
CREATE INDEX calendar_subscriptions_due_idx ON calendar_subscriptions (next_sync_at);

-- Every busy time, whatever its source: a closure (source_id = id, with its reason) or one interval
-- of a subscription's calendar (source_id = the subscription). A1, claim_place and D6/D9 read only
-- this table. resource_id NULL: every resource of the provider.
CREATE TABLE busy_times (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  crm_id       text NOT NULL,
  provider_id  uuid NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
  resource_id  uuid REFERENCES resources (id) ON DELETE CASCADE,
  source       text NOT NULL CHECK (source IN ('closure', 'subscription')),
  source_id    uuid NOT NULL,
  start_at     timestamptz NOT NULL,
  end_at       timestamptz NOT NULL,
  reason       text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  CHECK (end_at > start_at)
);
CREATE INDEX busy_times_span_idx ON busy_times USING gist (provider_id, tstzrange(start_at, end_at));
CREATE INDEX busy_times_source_idx ON busy_times (source_id);

-- The write-back outbox: (subscription, appointment) pairs whose calendar entry must be brought up to
-- date. The worker reads the appointment's state when it runs, so one row stands for any number of
-- changes; version tells a change made while the worker ran from the one it wrote.
CREATE TABLE calendar_writes (
  subscription_id  uuid NOT NULL REFERENCES calendar_subscriptions (id) ON DELETE CASCADE,
  appointment_id   uuid NOT NULL,
  version          bigint NOT NULL DEFAULT 1,
  -- '-infinity': due at once, whatever the application's clock says
  due_at           timestamptz NOT NULL DEFAULT '-infinity',
  attempts         integer NOT NULL DEFAULT 0,
  last_error       text,
  PRIMARY KEY (subscription_id, appointment_id)
);
CREATE INDEX calendar_writes_due_idx ON calendar_writes (due_at);
