-- Migration 028: customers_provider_email_idx (migration 023) repeats customers_email_idx (migration
-- 003) column for column, predicate included: every customer written updated both. One is enough.
DROP INDEX IF EXISTS customers_provider_email_idx;
