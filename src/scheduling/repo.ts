/** Named queries of the scheduling module; each takes the database or an open transaction. */
import { notFound } from '../errors.js';
import type { Queryable } from '../storage/db.js';
import type { AppointmentRow, ParticipationRow } from './capacity.js';

export interface ResourceRef {
  id: string;
  reference: string;
  archived: boolean;
  address: unknown;
}

export interface ProductRef {
  id: string;
  reference: string;
  name: string;
}

export interface TimeslotRow {
  id: string;
  crm_id: string;
  provider_id: string;
  resource_id: string;
  resource_reference: string;
  reference: string;
  start_at: Date;
  end_at: Date;
  raster: number;
  default_capacity: number;
  default_accept_bookings: boolean;
  address: unknown;
  state: 'CREATED' | 'BOOKABLE';
  /** the availability rule that made it (null: a one-off timeslot) */
  rule_reference: string | null;
}

export interface CustomerRow {
  id: string;
  crm_id: string;
  provider_id: string;
  provider_reference: string;
  user_id: string | null;
  reference: string;
  user_name: string;
  email: string | null;
  mobile: string | null;
  note: string | null;
  language: string | null;
}

export async function requireResource(db: Queryable, providerId: string, reference: string): Promise<ResourceRef> {
  const [row] = await db.query<ResourceRef>(
    'SELECT id, reference, archived, address FROM resources WHERE provider_id = $1 AND reference = $2',
    [providerId, reference],
  );
  if (!row) throw notFound(`no resource found for reference ${reference}`);
  return row;
}

export async function requireProduct(db: Queryable, providerId: string, reference: string): Promise<ProductRef> {
  const [row] = await db.query<ProductRef>(
    'SELECT id, reference, name FROM products WHERE provider_id = $1 AND reference = $2',
    [providerId, reference],
  );
  if (!row) throw notFound(`no product found for reference ${reference}`);
  return row;
}

export async function requireUser(
  db: Queryable,
  crmId: string,
  reference: string,
  field: string,
): Promise<{ id: string }> {
  const [row] = await db.query<{ id: string }>('SELECT id FROM users WHERE crm_id = $1 AND reference = $2', [
    crmId,
    reference,
  ]);
  if (!row) throw notFound(`no user found for ${field} ${reference}`);
  return row;
}

const TIMESLOT_SELECT = `SELECT t.*, r.reference AS resource_reference,
    (SELECT ar.reference FROM availability_rules ar WHERE ar.id = t.rule_id) AS rule_reference
  FROM timeslots t JOIN resources r ON r.id = t.resource_id`;

export const timeslotByReference = async (db: Queryable, providerId: string, reference: string) =>
  (
    await db.query<TimeslotRow>(`${TIMESLOT_SELECT} WHERE t.provider_id = $1 AND t.reference = $2`, [
      providerId,
      reference,
    ])
  )[0];

export async function requireTimeslot(db: Queryable, providerId: string, reference: string): Promise<TimeslotRow> {
  const row = await timeslotByReference(db, providerId, reference);
  if (!row) throw notFound(`no timeslot found for reference ${reference}`);
  return row;
}

/** Timeslots of a resource that overlap [from, to), in time order. */
export const timeslotsOverlapping = (db: Queryable, resourceId: string, from: Date, to: Date) =>
  db.query<TimeslotRow>(
    `${TIMESLOT_SELECT} WHERE t.resource_id = $1 AND t.start_at < $3 AND t.end_at > $2
      ORDER BY t.start_at, t.reference`,
    [resourceId, from, to],
  );

export async function requireAppointment(
  db: Queryable,
  providerId: string,
  reference: string,
): Promise<AppointmentRow> {
  const [row] = await db.query<AppointmentRow>('SELECT * FROM appointments WHERE provider_id = $1 AND reference = $2', [
    providerId,
    reference,
  ]);
  if (!row) throw notFound(`no appointment found for reference ${reference}`);
  return row;
}

const CUSTOMER_SELECT =
  'SELECT c.*, p.reference AS provider_reference FROM customers c JOIN providers p ON p.id = c.provider_id';

export const customerByReference = async (db: Queryable, providerId: string, reference: string) =>
  (
    await db.query<CustomerRow>(`${CUSTOMER_SELECT} WHERE c.provider_id = $1 AND c.reference = $2`, [
      providerId,
      reference,
    ])
  )[0];

export async function requireCustomer(db: Queryable, providerId: string, reference: string): Promise<CustomerRow> {
  const row = await customerByReference(db, providerId, reference);
  if (!row) throw notFound(`no customer found for reference ${reference}`);
  return row;
}

export const participationByReference = async (db: Queryable, providerId: string, reference: string) =>
  (
    await db.query<ParticipationRow>('SELECT * FROM participations WHERE provider_id = $1 AND reference = $2', [
      providerId,
      reference,
    ])
  )[0];

export const participationNotFound = (reference: string) =>
  notFound(`no participation found for reference ${reference}`);
