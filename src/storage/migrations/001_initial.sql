-- Every partner-owned row carries crm_id: data never crosses partners.
CREATE EXTENSION IF NOT EXISTS btree_gist;

CREATE TABLE settings (
  key   text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE api_keys (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  crm_id     text NOT NULL,
  key_hash   text NOT NULL UNIQUE,
  label      text,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

CREATE TABLE users (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  crm_id         text NOT NULL,
  reference      text,
  email          text NOT NULL,
  username       text NOT NULL,
  first_name     text,
  last_name      text,
  phone          text,
  mobile         text,
  language       text,
  email_verified boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_reference_key ON users (crm_id, reference) WHERE reference IS NOT NULL;
CREATE UNIQUE INDEX users_email_key ON users (crm_id, lower(email));
CREATE UNIQUE INDEX users_username_key ON users (crm_id, lower(username));
CREATE INDEX users_mobile_idx ON users (crm_id, mobile) WHERE mobile IS NOT NULL;

CREATE TABLE accounts (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  crm_id               text NOT NULL,
  reference            text NOT NULL,
  owner_user_id        uuid NOT NULL REFERENCES users (id),
  branch               text NOT NULL,
  invoice_address      jsonb,
  invoice_contact_name text,
  invoice_company_name text,
  invoice_tax_id       text,
  email                text,
  created_at           timestamptz NOT NULL DEFAULT now(),
  UNIQUE (crm_id, reference)
);

CREATE TABLE providers (
  id                        uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  crm_id                    text NOT NULL,
  reference                 text NOT NULL,
  owner_user_id             uuid NOT NULL REFERENCES users (id),
  account_id                uuid NOT NULL REFERENCES accounts (id),
  name                      text NOT NULL,
  description               text,
  email                     text,
  mobile                    text,
  phone                     text,
  impressum                 text,
  branch                    text,
  subbranch                 text,
  time_zone                 text NOT NULL,
  is_theming_allowed        boolean NOT NULL DEFAULT true,
  is_localisation_allowed   boolean NOT NULL DEFAULT true,
  are_custom_fields_allowed boolean NOT NULL DEFAULT false,
  created_at                timestamptz NOT NULL DEFAULT now(),
  UNIQUE (crm_id, reference)
);

CREATE TABLE provider_staff (
  provider_id uuid NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider_id, user_id)
);

-- provider_id NULL: the user's general profile; otherwise a provider-specific one.
-- channels: [{type, label, value}], at most one per type.
CREATE TABLE contact_profiles (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  crm_id      text NOT NULL,
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider_id uuid REFERENCES providers (id) ON DELETE CASCADE,
  reference   text,
  name        text NOT NULL,
  channels    jsonb NOT NULL DEFAULT '[]',
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX contact_profiles_general_key ON contact_profiles (user_id) WHERE provider_id IS NULL;
CREATE UNIQUE INDEX contact_profiles_reference_key ON contact_profiles (provider_id, reference) WHERE provider_id IS NOT NULL;

CREATE TABLE products (
  id                     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  crm_id                 text NOT NULL,
  provider_id            uuid NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
  reference              text NOT NULL,
  name                   text NOT NULL,
  description            text,
  min_duration           integer,
  max_duration           integer,
  lead_time_minutes      integer,
  follow_up_time_minutes integer,
  exclusive              boolean NOT NULL DEFAULT false,
  created_at             timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider_id, reference)
);

-- channels: {channelKey: {bookingProcess}}; a missing key means IMMEDIATE.
CREATE TABLE resources (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  crm_id               text NOT NULL,
  provider_id          uuid NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
  reference            text NOT NULL,
  public_name          text NOT NULL,
  internal_name        text NOT NULL,
  description          text,
  contact_user_id      uuid REFERENCES users (id) ON DELETE SET NULL,
  contact_profile_id   uuid REFERENCES contact_profiles (id) ON DELETE SET NULL,
  website              text,
  img_url              text,
  msg_help_text        text,
  contact_channel_type text,
  archived             boolean NOT NULL DEFAULT false,
  address              jsonb,
  channels             jsonb NOT NULL DEFAULT '{}',
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider_id, reference)
);
CREATE INDEX resources_reference_idx ON resources (reference);

CREATE TABLE resource_products (
  resource_id uuid NOT NULL REFERENCES resources (id) ON DELETE CASCADE,
  product_id  uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
  position    integer NOT NULL DEFAULT 0,
  PRIMARY KEY (resource_id, product_id)
);

CREATE TABLE timeslots (
  id                      uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  crm_id                  text NOT NULL,
  provider_id             uuid NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
  resource_id             uuid NOT NULL REFERENCES resources (id) ON DELETE CASCADE,
  reference               text NOT NULL,
  start_at                timestamptz NOT NULL,
  end_at                  timestamptz NOT NULL,
  raster                  integer NOT NULL CHECK (raster > 0),
  default_capacity        integer NOT NULL CHECK (default_capacity >= 0),
  default_accept_bookings boolean NOT NULL,
  address                 jsonb,
  state                   text NOT NULL CHECK (state IN ('CREATED', 'BOOKABLE')),
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  CHECK (end_at > start_at),
  UNIQUE (provider_id, reference)
);
CREATE INDEX timeslots_resource_idx ON timeslots (resource_id, end_at);

-- No two live appointments of one resource overlap: the database refuses it.
CREATE TABLE appointments (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  crm_id          text NOT NULL,
  provider_id     uuid NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
  resource_id     uuid REFERENCES resources (id) ON DELETE SET NULL,
  product_id      uuid REFERENCES products (id) ON DELETE SET NULL,
  timeslot_id     uuid REFERENCES timeslots (id) ON DELETE SET NULL,
  reference       text NOT NULL,
  series_id       text,
  start_at        timestamptz NOT NULL,
  end_at          timestamptz NOT NULL,
  capacity        integer NOT NULL DEFAULT 0 CHECK (capacity >= 0),
  accept_bookings boolean NOT NULL DEFAULT false,
  product_name    text,
  contact_user_id uuid REFERENCES users (id) ON DELETE SET NULL,
  address         jsonb,
  price_value     numeric(12, 2),
  price_currency  text,
  description     text,
  notes           text,
  archived        boolean NOT NULL DEFAULT false,
  state           text NOT NULL DEFAULT 'ACTIVE' CHECK (state IN ('ACTIVE', 'CANCELLED')),
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  CHECK (end_at > start_at),
  UNIQUE (provider_id, reference),
  CONSTRAINT appointments_no_overlap EXCLUDE USING gist (
    resource_id WITH =, tstzrange(start_at, end_at) WITH &&
  ) WHERE (state = 'ACTIVE' AND NOT archived)
);
CREATE INDEX appointments_resource_idx ON appointments (resource_id, end_at);
CREATE INDEX appointments_series_idx ON appointments (provider_id, series_id) WHERE series_id IS NOT NULL;

CREATE TABLE customers (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  crm_id      text NOT NULL,
  provider_id uuid NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
  user_id     uuid REFERENCES users (id) ON DELETE SET NULL,
  reference   text NOT NULL,
  user_name   text NOT NULL,
  email       text,
  mobile      text,
  note        text,
  language    text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider_id, reference)
);
CREATE INDEX customers_user_idx ON customers (provider_id, user_id);

-- RESERVED rows hold a place until hold_until; after that they count for nothing.
-- placeholder_id is the customer_uuid handed out by reserve_appointment.
CREATE TABLE participations (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  crm_id         text NOT NULL,
  provider_id    uuid NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
  appointment_id uuid NOT NULL REFERENCES appointments (id) ON DELETE CASCADE,
  reference      text NOT NULL,
  customer_id    uuid REFERENCES customers (id) ON DELETE SET NULL,
  placeholder_id uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  state          text NOT NULL CHECK (state IN ('RESERVED', 'REQUESTED', 'BOOKED', 'CANCELED', 'DELETED')),
  hold_until     timestamptz,
  client_ip      text,
  channel_key    text,
  message        text,
  locale         text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider_id, reference)
);
CREATE UNIQUE INDEX participations_one_per_customer ON participations (appointment_id, customer_id)
  WHERE customer_id IS NOT NULL AND state IN ('REQUESTED', 'BOOKED');
CREATE INDEX participations_appointment_idx ON participations (appointment_id) WHERE state IN ('RESERVED', 'REQUESTED', 'BOOKED');
CREATE INDEX participations_hold_idx ON participations (hold_until) WHERE state = 'RESERVED';
CREATE INDEX participations_customer_idx ON participations (customer_id);

-- Transactional outbox: written in the same transaction as the change it reports.
CREATE TABLE outbox (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  crm_id          text,
  template        text NOT NULL,
  recipient       text NOT NULL,
  locale          text NOT NULL,
  payload         jsonb NOT NULL,
  status          text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SENT', 'FAILED')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error      text,
  sent_at         timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbox_pending_idx ON outbox (next_attempt_at) WHERE status = 'PENDING';
