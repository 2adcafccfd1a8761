-- Calendar feeds (docs/provider-links.md): a secret URL per feed serves the provider's (or one resource's)
-- appointments as iCalendar. Only the SHA-256 of the URL's token is kept, so reading the database
-- does not reveal a working feed URL. Deleting the feed (or its provider or resource) ends the URL.
CREATE TABLE calendar_feeds (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  crm_id      text NOT NULL,
  provider_id uuid NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
  -- NULL: every resource of the provider, also those created later
  resource_id uuid REFERENCES resources (id) ON DELETE CASCADE,
  token_hash  text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX calendar_feeds_provider_idx ON calendar_feeds (provider_id);

-- A feed reads one provider's (or resource's) appointments in a time window.
CREATE INDEX appointments_provider_end_idx ON appointments (provider_id, end_at);
