/**
 * Phone numbers (DESIGN 7.12, docs/api.md "Consumer rules"): read with libphonenumber-js for a
 * country (the provider's: provider_country.sql; a crm's: crm_country.sql), kept as typed for
 * display and compared in E.164 (the `mobile_e164` columns, migration 023) everywhere. A number no
 * country could have has no E.164 form; it is compared as typed.
 */
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { invalid } from '../errors.js';
import type { Queryable } from '../storage/db.js';

export const DEFAULT_PHONE_COUNTRY = 'DE';

/**
 * The number in E.164 (`+4915123456789`), read for `country` (ISO 3166-1 alpha-2) when it has no
 * country code of its own (`+49…`, `0049…`); null when no country could have such a number.
 */
export function phoneE164(text: string, country: string): string | null {
  const parsed = parsePhoneNumberFromString(text, country.toUpperCase() as CountryCode);
  return parsed?.isPossible() ? parsed.number : null;
}

/** A consumer's number (A3 `mobile`, a phone question): its E.164 form, or 400 naming the field. */
export function possiblePhone(text: string, country: string, field: string): string {
  const e164 = phoneE164(text, country);
  if (!e164) {
    throw invalid(
      `${field} is not a phone number any country could have: give it with its area code (e.g. 030 1234567) ` +
        `or country code (e.g. +49 30 1234567)`,
    );
  }
  return e164;
}

/** The country a provider's phone numbers are read for: the resource's, else the account's, else DE. */
export async function providerCountry(
  db: Queryable,
  providerId: string,
  resourceId: string | null = null,
): Promise<string> {
  const [row] = await db.query<{ country: string }>('SELECT provider_country($1, $2) AS country', [
    providerId,
    resourceId,
  ]);
  return row.country;
}

/** The country a crm's numbers without a country code are read for (a crm's users; data requests). */
export async function crmCountry(db: Queryable, crmId: string): Promise<string> {
  const [row] = await db.query<{ country: string }>('SELECT crm_country($1) AS country', [crmId]);
  return row.country;
}

/** A stored number's E.164 form for its row, or null: none given, or none could be read. */
export const storedE164 = (mobile: string | null | undefined, country: string) =>
  mobile ? phoneE164(mobile, country) : null;

const FILL_BATCH = 500;

interface Unread {
  id: string;
  mobile: string;
  country: string;
}

/**
 * Reads and stores one batch of a table's unread numbers after
 * `after` (by id); returns the last id, or null at the end.
 */
async function fillBatch(db: Queryable, table: 'users' | 'customers', after: string | null): Promise<string | null> {
  const country = table === 'customers' ? 'provider_country(x.provider_id, NULL)' : 'crm_country(x.crm_id)';
  const rows = await db.query<Unread>(
    `SELECT x.id, x.mobile, ${country} AS country FROM ${table} x
      WHERE x.mobile IS NOT NULL AND x.mobile_e164 IS NULL AND ($1::uuid IS NULL OR x.id > $1)
      ORDER BY x.id LIMIT ${FILL_BATCH}`,
    [after],
  );
  const read = rows
    .map((r) => ({ id: r.id, mobile: r.mobile, e164: phoneE164(r.mobile, r.country) }))
    .filter((r) => r.e164 !== null);
  if (read.length > 0) {
    // only while the number is still the one read: a change meanwhile brought its own E.164 form
    await db.query(
      `UPDATE ${table} x SET mobile_e164 = r.e164
         FROM unnest($1::uuid[], $2::text[], $3::text[]) AS r (id, mobile, e164)
        WHERE x.id = r.id AND x.mobile = r.mobile AND x.mobile_e164 IS NULL`,
      [read.map((r) => r.id), read.map((r) => r.mobile), read.map((r) => r.e164)],
    );
  }
  return rows.length === FILL_BATCH ? rows[rows.length - 1].id : null;
}

/**
 * Stores the E.164 form of every number that has none yet: rows from before migration 023, and rows
 * an older version of the service wrote while a newer one ran beside it. Numbers no country could
 * have stay without one (and are compared as stored). Returns how many batches it read.
 */
export async function fillPhoneNumbers(db: Queryable): Promise<number> {
  let batches = 0;
  for (const table of ['users', 'customers'] as const) {
    let after: string | null = null;
    do {
      after = await fillBatch(db, table, after);
      batches++;
    } while (after !== null);
  }
  return batches;
}
