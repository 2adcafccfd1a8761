/**
 * The consumer of a public booking (docs/api.md, Booking rules): a user of the resource's crm matched
 * by email, else by mobile, else created; and the provider's customer record linked to that user.
 * Missing names and mobile are filled in, never overwritten.
 */
import { randomUUID } from 'node:crypto';
import { DEFAULT_LANGUAGE } from '../partners/users.js';
import * as users from '../partners/repo.js';
import { usernameFromEmail } from '../partners/rules.js';
import type { Queryable } from '../storage/db.js';

export interface ConsumerInput {
  email: string;
  firstname: string;
  lastname: string;
  mobile?: string;
  /** two-letter language, already normalized */
  language?: string;
}

/** The username for a new user: from the email, with a numbered suffix while another user has it. */
async function freeUsername(tx: Queryable, crmId: string, email: string): Promise<string> {
  const base = usernameFromEmail(email);
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (!(await users.userByUsername(tx, crmId, candidate))) return candidate;
  }
}

/** The crm's user with this email, else the oldest with this mobile (one query). */
async function matchUser(tx: Queryable, crmId: string, c: ConsumerInput): Promise<users.UserRow | undefined> {
  const [row] = await tx.query<users.UserRow>(
    `SELECT * FROM users WHERE crm_id = $1 AND (lower(email) = lower($2) OR ($3::text IS NOT NULL AND mobile = $3))
      ORDER BY lower(email) = lower($2) DESC, created_at LIMIT 1`,
    [crmId, c.email, c.mobile ?? null],
  );
  return row;
}

/** Finds, completes or creates the user; its row stays locked, so one consumer's bookings queue up. */
async function consumerUser(tx: Queryable, crmId: string, c: ConsumerInput): Promise<users.UserRow> {
  const found = await matchUser(tx, crmId, c);
  if (!found) {
    const user = {
      crmId,
      reference: null,
      email: c.email,
      firstName: c.firstname,
      lastName: c.lastname,
      mobile: c.mobile ?? null,
      language: c.language ?? DEFAULT_LANGUAGE,
    };
    // Usually the email-derived username is free; when it is not, pick a numbered one. A concurrent
    // booking with the same email fails here on the email index, and its retry finds this user.
    const [created] = await tx.query<users.UserRow>(
      `INSERT INTO users (crm_id, reference, email, username, first_name, last_name, mobile, language)
       VALUES ($1, NULL, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING *`,
      [crmId, user.email, usernameFromEmail(c.email), user.firstName, user.lastName, user.mobile, user.language],
    );
    return created ?? users.insertUser(tx, { ...user, username: await freeUsername(tx, crmId, c.email) });
  }
  const missing: users.UserChanges = {
    firstName: found.first_name ? undefined : c.firstname,
    lastName: found.last_name ? undefined : c.lastname,
    mobile: found.mobile || !c.mobile ? undefined : c.mobile,
  };
  // The UPDATE also takes the row lock when nothing is missing.
  return users.updateUser(tx, found.id, missing);
}

/** The provider's customer a public booking is made for, as the booking's mails show it. */
export interface ConsumerCustomer {
  id: string;
  user_name: string;
  email: string | null;
  mobile: string | null;
  language: string | null;
}

/** The provider's customer of this user (or of this email, not yet linked), completed and linked; else a new one. */
async function providerCustomer(tx: Queryable, provider: { id: string; crmId: string }, user: users.UserRow, c: ConsumerInput): Promise<ConsumerCustomer> {
  // Find, or insert when there is none, in one statement.
  const [row] = await tx.query<ConsumerCustomer & { user_id: string | null; created: boolean }>(
    `WITH found AS (
       SELECT id, user_id, user_name, email, mobile, language FROM customers
        WHERE provider_id = $1 AND (user_id = $2 OR (user_id IS NULL AND lower(email) = lower($3)))
        ORDER BY user_id NULLS LAST, created_at LIMIT 1),
     inserted AS (
       INSERT INTO customers (crm_id, provider_id, user_id, reference, user_name, email, mobile, language)
       SELECT $4, $1, $2, $5, $6, $3, $7, $8 WHERE NOT EXISTS (SELECT 1 FROM found)
       RETURNING id, user_id, user_name, email, mobile, language)
     SELECT *, false AS created FROM found UNION ALL SELECT *, true AS created FROM inserted`,
    [
      provider.id, user.id, user.email, provider.crmId, `customer-${randomUUID()}`,
      [user.first_name ?? c.firstname, user.last_name ?? c.lastname].filter(Boolean).join(' '),
      user.mobile ?? c.mobile ?? null, c.language ?? user.language,
    ],
  );
  const { user_id, created, ...customer } = row;
  if (!created && (!user_id || !row.email || (!row.mobile && c.mobile) || !row.language)) {
    const [completed] = await tx.query<ConsumerCustomer>(
      `UPDATE customers SET user_id = $2, email = COALESCE(email, $3), mobile = COALESCE(mobile, $4), language = COALESCE(language, $5), updated_at = now()
        WHERE id = $1 RETURNING id, user_name, email, mobile, language`,
      [row.id, user.id, user.email, c.mobile ?? null, user.language],
    );
    return completed;
  }
  return customer;
}

/** The customer a booking of this consumer at this provider is made for. */
export async function consumerCustomer(tx: Queryable, provider: { id: string; crmId: string }, c: ConsumerInput): Promise<ConsumerCustomer> {
  const user = await consumerUser(tx, provider.crmId, c);
  return providerCustomer(tx, provider, user, c);
}
