/**
 * Who a consumer-data request is about (docs/privacy.md): the users of the crm with that e-mail
 * (case-insensitive) or mobile (in E.164, as every number is compared: same_phone.sql), the crm's
 * customers with it or linked to those users, and the participations of those customers.
 */
import { crmCountry, phoneE164 } from '../partners/phoneNumbers.js';
import type { Queryable } from '../storage/db.js';

/** Exactly one of the two. */
export interface PersonKey {
  email?: string;
  mobile?: string;
}

export interface Person {
  userIds: string[];
  customerIds: string[];
  participationIds: string[];
  /** what the request identified the person by */
  needles: string[];
}

/** The one identifier of a request (the schema gives exactly one, not blank), trimmed. */
export function personKey(input: PersonKey): { email: string | null; mobile: string | null } {
  return { email: input.email?.trim() || null, mobile: input.mobile?.trim() || null };
}

/** The person's rows; `lock` takes their users' and customers' row locks (erasure). */
export async function findPerson(db: Queryable, crmId: string, input: PersonKey, lock = false): Promise<Person> {
  const { email, mobile } = personKey(input);
  // a number without its country code is read for the crm's country
  const e164 = mobile ? phoneE164(mobile, await crmCountry(db, crmId)) : null;
  const forUpdate = lock ? 'FOR UPDATE' : '';
  const who = `(($2::text IS NOT NULL AND lower(email) = lower($2))
                OR ($3::text IS NOT NULL AND same_phone(mobile_e164, mobile, $4, $3)))`;
  const users = await db.query<{ id: string }>(
    `SELECT id FROM users WHERE crm_id = $1 AND ${who} ORDER BY id ${forUpdate}`,
    [crmId, email, mobile, e164],
  );
  const userIds = users.map((u) => u.id);
  const customers = await db.query<{ id: string }>(
    `SELECT id FROM customers WHERE crm_id = $1 AND (user_id = ANY ($5::uuid[]) OR ${who}) ORDER BY id ${forUpdate}`,
    [crmId, email, mobile, e164, userIds],
  );
  const customerIds = customers.map((c) => c.id);
  const participations = await db.query<{ id: string }>(
    'SELECT id FROM participations WHERE customer_id = ANY ($1::uuid[]) ORDER BY created_at, id',
    [customerIds],
  );
  const needles = email ? [email] : [...new Set([mobile!, ...(e164 ? [e164] : [])])];
  return { userIds, customerIds, participationIds: participations.map((p) => p.id), needles };
}
