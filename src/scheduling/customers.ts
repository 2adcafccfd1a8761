/** Customers of a provider (D11-D14) and the find-or-create used by inline participations. */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../context.js';
import { conflict, invalid } from '../errors.js';
import { requireProvider } from '../partners/providers.js';
import { providerCountry, storedE164 } from '../partners/phoneNumbers.js';
import type { MailTemplate } from '../notifications/templateNames.js';
import { constraintName, retryOnUniqueViolation, sqlState, type Queryable } from '../storage/db.js';
import { appointmentIsCurrentSql, LIVE_PARTICIPATION_SQL, type ParticipationRow } from './capacity.js';
import { changeParticipationState } from './participations.js';
import * as repo from './repo.js';

export interface CustomerView {
  customerReference: string;
  providerReference: string;
  userName: string;
  email: string | null;
  mobile: string | null;
  note: string | null;
  language: string | null;
}

export interface CustomerInput {
  customerReference: string;
  providerReference: string;
  userName: string;
  email?: string;
  mobile?: string;
  note?: string;
  language?: string;
}

export interface CustomerUpdate {
  customerReference?: string;
  userName?: string;
  email?: string | null;
  mobile?: string | null;
  note?: string | null;
  language?: string | null;
}

export function customerView(row: repo.CustomerRow): CustomerView {
  return {
    customerReference: row.reference,
    providerReference: row.provider_reference,
    userName: row.user_name,
    email: row.email,
    mobile: row.mobile,
    note: row.note,
    language: row.language,
  };
}

const lower = (language: string | null | undefined) =>
  typeof language === 'string' ? language.toLowerCase() : language;

interface NewCustomer {
  crmId: string;
  providerId: string;
  reference: string;
  userName: string;
  email?: string | null;
  mobile?: string | null;
  /** the mobile in E.164 (partners/phoneNumbers.ts); null: none, or none could be read */
  mobileE164: string | null;
  note?: string | null;
  language?: string | null;
}

export async function insertCustomer(tx: Queryable, c: NewCustomer): Promise<repo.CustomerRow> {
  const [{ id }] = await tx.query<{ id: string }>(
    `INSERT INTO customers (crm_id, provider_id, reference, user_name, email, mobile, mobile_e164, note, language)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
    [
      c.crmId,
      c.providerId,
      c.reference,
      c.userName,
      c.email ?? null,
      c.mobile ?? null,
      c.mobileE164,
      c.note ?? null,
      lower(c.language) ?? null,
    ],
  );
  const [row] = await tx.query<repo.CustomerRow>(
    `SELECT c.*, p.reference AS provider_reference
       FROM customers c JOIN providers p ON p.id = c.provider_id WHERE c.id = $1`,
    [id],
  );
  return row;
}

/** A number the partner gave, with its E.164 form for the provider (or resource) where it can be read. */
async function partnerMobile(
  tx: Queryable,
  providerId: string,
  mobile: string | null | undefined,
  resourceId: string | null = null,
) {
  const given = mobile?.trim() || null;
  return {
    mobile: given,
    mobileE164: given ? storedE164(given, await providerCountry(tx, providerId, resourceId)) : null,
  };
}

/**
 * The provider's customer who is this person (matching_customer.sql: by e-mail; else one without
 * e-mail with this mobile), or a new one with a generated reference. A found customer gets a
 * missing e-mail or mobile filled in, never overwritten. `resourceId`: the appointment's, whose
 * country the mobile is read for.
 */
export async function findOrCreateCustomer(
  tx: Queryable,
  provider: { id: string; crm_id: string },
  person: { name: string; email: string; mobile?: string | null },
  resourceId: string | null,
): Promise<repo.CustomerRow> {
  const { mobile, mobileE164 } = await partnerMobile(tx, provider.id, person.mobile, resourceId);
  const [found] = await tx.query<repo.CustomerRow>(
    `SELECT m.*, p.reference AS provider_reference FROM matching_customer($1, NULL, $2, $3, $4) m JOIN providers p
       ON p.id = m.provider_id`,
    [provider.id, person.email, mobile, mobileE164],
  );
  if (found) {
    if (found.email && (found.mobile || !mobile)) return found;
    const [row] = await tx.query<repo.CustomerRow>(
      `UPDATE customers SET email = COALESCE(email, $2), mobile = COALESCE(mobile, $3),
                            mobile_e164 = CASE WHEN mobile IS NULL THEN $4 ELSE mobile_e164 END, updated_at = now()
        WHERE id = $1 RETURNING *`,
      [found.id, person.email, mobile, mobileE164],
    );
    return { ...row, provider_reference: found.provider_reference };
  }
  return insertCustomer(tx, {
    crmId: provider.crm_id,
    providerId: provider.id,
    reference: `customer-${randomUUID()}`,
    userName: person.name,
    email: person.email,
    mobile,
    mobileE164,
  });
}

/** D11: the customer, or null (the route answers 204). */
export async function getCustomer(
  deps: Deps,
  crmId: string,
  providerRef: string,
  reference: string,
): Promise<CustomerView | null> {
  const provider = await requireProvider(deps.db, crmId, providerRef);
  const row = await repo.customerByReference(deps.db, provider.id, reference);
  return row ? customerView(row) : null;
}

/** D12: 201 new; an existing reference is answered with 200 and left unchanged (D13 changes it). */
export async function createCustomer(
  deps: Deps,
  crmId: string,
  providerRef: string,
  input: CustomerInput,
): Promise<{ created: boolean; customer: CustomerView }> {
  if (input.providerReference !== providerRef) {
    throw invalid(`body.providerReference must be the provider of the path (${providerRef})`);
  }
  return retryOnUniqueViolation(() =>
    deps.db.transaction(async (tx) => {
      const provider = await requireProvider(tx, crmId, providerRef);
      const existing = await repo.customerByReference(tx, provider.id, input.customerReference);
      if (existing) return { created: false, customer: customerView(existing) };
      const row = await insertCustomer(tx, {
        crmId,
        providerId: provider.id,
        reference: input.customerReference,
        userName: input.userName,
        email: input.email,
        ...(await partnerMobile(tx, provider.id, input.mobile)),
        note: input.note,
        language: input.language,
      });
      return { created: true, customer: customerView(row) };
    }),
  );
}

const CUSTOMER_COLUMNS = {
  customerReference: 'reference',
  userName: 'user_name',
  email: 'email',
  mobile: 'mobile',
  note: 'note',
  language: 'language',
} as const;

/** D13: the given fields only; null clears an optional one. A new customerReference renames (409 if taken). */
export async function updateCustomer(
  deps: Deps,
  crmId: string,
  providerRef: string,
  reference: string,
  changes: CustomerUpdate,
): Promise<CustomerView> {
  return deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const row = await repo.requireCustomer(tx, provider.id, reference);
    const sets: string[] = [];
    const params: unknown[] = [row.id];
    for (const [key, column] of Object.entries(CUSTOMER_COLUMNS)) {
      const value = changes[key as keyof typeof CUSTOMER_COLUMNS];
      if (value === undefined) continue;
      params.push(key === 'language' ? lower(value) : value);
      sets.push(`${column} = $${params.length}`);
    }
    if (changes.mobile !== undefined) {
      params.push((await partnerMobile(tx, provider.id, changes.mobile)).mobileE164);
      sets.push(`mobile_e164 = $${params.length}`);
    }
    try {
      await tx.query(`UPDATE customers SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $1`, params);
    } catch (err) {
      if (sqlState(err) === '23505' && constraintName(err) === 'customers_provider_id_reference_key') {
        throw conflict(`a customer with reference ${changes.customerReference} already exists`);
      }
      throw err;
    }
    return customerView(await repo.requireCustomer(tx, provider.id, changes.customerReference ?? reference));
  });
}

/**
 * D14. Future place-holding participations (appointment ACTIVE, not archived, not yet ended: a
 * running one counts, as in B6) block the delete with 409 unless ignoreFutureAppointments; then
 * each becomes CANCELED, REQUESTED and BOOKED ones with a 'customer-removed' mail (unless sendMails
 * is false), and the customer is deleted. Past participations stay, without customer.
 */
export async function deleteCustomer(
  deps: Deps,
  crmId: string,
  providerRef: string,
  reference: string,
  options: { ignoreFutureAppointments?: boolean; sendMails?: boolean } = {},
): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const provider = await requireProvider(tx, crmId, providerRef);
    const customer = await repo.requireCustomer(tx, provider.id, reference);
    const now = deps.clock.now();
    // $2 is `now`: LIVE_PARTICIPATION_SQL refers to it. Appointment id order = lock order.
    const future = await tx.query<ParticipationRow>(
      `SELECT p.* FROM (SELECT * FROM participations WHERE customer_id = $1 AND ${LIVE_PARTICIPATION_SQL}) p
         JOIN appointments a ON a.id = p.appointment_id
        WHERE ${appointmentIsCurrentSql('a')} AND a.end_at > $2
        ORDER BY p.appointment_id, p.id`,
      [customer.id, now],
    );
    if (future.length > 0 && !options.ignoreFutureAppointments) {
      throw conflict(
        `customer ${reference} has ${future.length} future appointment(s); ` +
          `pass ignoreFutureAppointments=true to remove them`,
      );
    }
    for (const participation of future) {
      const templates: MailTemplate[] = participation.state === 'RESERVED' ? [] : ['customer-removed'];
      await changeParticipationState(tx, deps, participation, 'CANCELED', { sendMails: options.sendMails, templates });
    }
    await tx.query('DELETE FROM customers WHERE id = $1', [customer.id]);
  });
}
