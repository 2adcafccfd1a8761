/**
 * The booking kernel: the only code that creates appointments on a resource and takes places in
 * an appointment. Everything that must never break is decided by the database:
 *  - a resource's live appointments never meet, buffers counted: the exclusion constraint
 *    appointments_no_overlap spans each appointment's blocked range [blocked_from, blocked_until),
 *    its time widened by the lead/follow-up buffers it was booked with (migration 006);
 *  - an appointment never has more live participations than its capacity: claim_place checks and
 *    takes a place under the appointment's row lock in one statement (claim_place.sql);
 *  - an appointment the public flow created blocks nothing once no participation holds a place in
 *    it (release_emptied_appointment.sql).
 * No resource-wide lock exists: creating an appointment waits only on an overlapping one, and
 * taking a place only on others taking a place in the same appointment.
 */
import { conflict, DomainError } from '../errors.js';
import { constraintName, sqlState, type Queryable } from '../storage/db.js';

export interface AppointmentRow {
  id: string;
  crm_id: string;
  provider_id: string;
  resource_id: string | null;
  product_id: string | null;
  timeslot_id: string | null;
  reference: string;
  series_id: string | null;
  start_at: Date;
  end_at: Date;
  capacity: number;
  accept_bookings: boolean;
  product_name: string | null;
  contact_user_id: string | null;
  address: unknown;
  price_value: number | string | null;
  price_currency: string | null;
  description: string | null;
  notes: string | null;
  archived: boolean;
  state: 'ACTIVE' | 'CANCELLED';
}

export interface NewAppointment {
  crmId: string;
  providerId: string;
  resourceId: string;
  productId: string | null;
  timeslotId?: string | null;
  reference: string;
  seriesId?: string | null;
  start: Date;
  end: Date;
  capacity: number;
  acceptBookings: boolean;
  productName?: string | null;
  contactUserId?: string | null;
  address?: unknown;
  priceValue?: number | null;
  priceCurrency?: string | null;
  description?: string | null;
  /**
   * created by the public booking flow (A2/A3): released once no participation holds a place in it
   * (release_emptied_appointment.sql)
   */
  createdByPublicFlow?: boolean;
}

export interface Buffers {
  leadMin: number;
  followUpMin: number;
}

const NO_BUFFERS: Buffers = { leadMin: 0, followUpMin: 0 };
const MINUTE_MS = 60_000;

/** Raised when a new appointment would meet another (buffers counted); the public flow turns it into 412/"201". */
export class SlotConflict extends DomainError {
  constructor(readonly clashingReference: string) {
    super('CONFLICT', `the time overlaps appointment ${clashingReference} of the same resource`);
  }
}

/** The range an appointment blocks on its resource: its own time widened by its buffers. */
export function blockedRange(start: Date, end: Date, buffers: Buffers = NO_BUFFERS): { from: Date; until: Date } {
  return {
    from: new Date(start.getTime() - buffers.leadMin * MINUTE_MS),
    until: new Date(end.getTime() + buffers.followUpMin * MINUTE_MS),
  };
}

/**
 * The reference of a live appointment of the resource whose blocked range meets [from, until), if
 * any (blocking_appointment.sql). A hold counts whatever its expiry here: the partner's insert does
 * not release an appointment a consumer may still be completing.
 */
async function clashingAppointment(
  tx: Queryable,
  resourceId: string,
  range: { from: Date; until: Date },
): Promise<string | undefined> {
  const [clash] = await tx.query<{ reference: string | null }>(
    `SELECT (blocking_appointment($1, $2, $3, '-infinity')).reference`,
    [resourceId, range.from, range.until],
  );
  return clash?.reference ?? undefined;
}

/**
 * Creates an appointment (a partner's: D6). Throws SlotConflict naming the appointment it would
 * meet, and 409 for a reference the provider has already. The insert itself decides (ON CONFLICT
 * waits for a concurrent overlapping insert and then yields), so no lock is taken beforehand.
 */
export async function insertAppointment(
  tx: Queryable,
  a: NewAppointment,
  buffers: Buffers = NO_BUFFERS,
): Promise<AppointmentRow> {
  const blocked = blockedRange(a.start, a.end, buffers);
  for (;;) {
    const [row] = await tx.query<AppointmentRow>(
      `INSERT INTO appointments (crm_id, provider_id, resource_id, product_id, timeslot_id, reference, series_id,
         start_at, end_at, blocked_from, blocked_until, capacity, accept_bookings, product_name, contact_user_id,
         address, price_value, price_currency, description, created_by_public_flow)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16::jsonb, $17, $18, $19, $20)
       ON CONFLICT DO NOTHING RETURNING *`,
      [
        a.crmId,
        a.providerId,
        a.resourceId,
        a.productId,
        a.timeslotId ?? null,
        a.reference,
        a.seriesId ?? null,
        a.start,
        a.end,
        blocked.from,
        blocked.until,
        a.capacity,
        a.acceptBookings,
        a.productName ?? null,
        a.contactUserId ?? null,
        a.address === undefined || a.address === null ? null : JSON.stringify(a.address),
        a.priceValue ?? null,
        a.priceCurrency ?? null,
        a.description ?? null,
        a.createdByPublicFlow ?? false,
      ],
    );
    if (row) return row;
    const [taken] = await tx.query('SELECT 1 FROM appointments WHERE provider_id = $1 AND reference = $2', [
      a.providerId,
      a.reference,
    ]);
    if (taken) throw conflict(`an appointment with reference ${a.reference} already exists`);
    const clash = await clashingAppointment(tx, a.resourceId, blocked);
    if (clash) throw new SlotConflict(clash);
    // the appointment in the way was removed meanwhile: try again
  }
}

/** Locks an appointment row for the rest of the transaction; undefined when it does not exist. */
export async function lockAppointment(tx: Queryable, appointmentId: string): Promise<AppointmentRow | undefined> {
  const [row] = await tx.query<AppointmentRow>('SELECT * FROM appointments WHERE id = $1 FOR UPDATE', [appointmentId]);
  return row;
}

/**
 * The condition that a participation holds a place at `now` (an SQL expression), through the
 * database's one rule, participation_is_live (scheduling/participation_is_live.sql): RESERVED with
 * a live hold, REQUESTED and BOOKED count; an expired hold counts for nothing, swept or not.
 * `alias` qualifies the participation's columns (`p` for p.state).
 */
export const liveParticipationSql = (now: string, alias?: string) => {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  return `participation_is_live(${column('state')}, ${column('hold_until')}, ${now})`;
};
/** liveParticipationSql with `now` in $2. */
export const LIVE_PARTICIPATION_SQL = liveParticipationSql('$2');

/**
 * The condition that an appointment is current, ACTIVE and not archived (an SQL expression), through
 * the database's one rule, appointment_is_current (scheduling/appointment_is_current.sql). `alias`
 * qualifies the appointment's columns (`a` for a.state).
 */
export const appointmentIsCurrentSql = (alias?: string) => {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  return `appointment_is_current(${column('state')}, ${column('archived')})`;
};

/**
 * The condition that an appointment still takes its time (an SQL expression), through the
 * database's one rule, appointment_takes_time (scheduling/appointment_takes_time.sql): current, and
 * made by the partner or held by a participation. `holdsAPlace` is an SQL boolean telling whether a
 * participation of it holds a place (counted with liveParticipationSql).
 */
export const appointmentTakesTimeSql = (alias: string, holdsAPlace: string) =>
  `appointment_takes_time(${alias}.state, ${alias}.archived, ${alias}.created_by_public_flow, ${holdsAPlace})`;

/**
 * participation_is_live for a row already in hand (its TypeScript twin, so a row just read needs no
 * second round trip; test/integration/storage-live-rule.test.ts holds the two to the same answers).
 */
export function holdsPlace(p: { state: string; hold_until: Date | null }, now: Date): boolean {
  return (
    p.state === 'REQUESTED' ||
    p.state === 'BOOKED' ||
    (p.state === 'RESERVED' && p.hold_until !== null && p.hold_until > now)
  );
}

export interface ParticipationRow {
  id: string;
  crm_id: string;
  provider_id: string;
  appointment_id: string;
  reference: string;
  customer_id: string | null;
  placeholder_id: string;
  state: 'RESERVED' | 'REQUESTED' | 'BOOKED' | 'CANCELED' | 'DELETED';
  hold_until: Date | null;
  client_ip: string | null;
  channel_key: string | null;
  message: string | null;
  locale: string | null;
  /** answers to the product's booking questions (notifications/answers.ts StoredAnswer[]); null: none */
  answers?: unknown;
  created_at: Date;
  updated_at: Date;
}

export interface NewParticipation {
  crmId: string;
  providerId: string;
  appointmentId: string;
  reference: string;
  customerId: string | null;
  state: ParticipationRow['state'];
  holdUntil?: Date | null;
  clientIp?: string | null;
  channelKey?: string | null;
  message?: string | null;
  locale?: string | null;
  note?: string | null;
}

/** Inserts a participation that holds no place (CANCELED, DELETED); places are taken by claimPlace. */
export async function insertParticipation(tx: Queryable, p: NewParticipation): Promise<ParticipationRow> {
  try {
    const [row] = await tx.query<ParticipationRow>(
      `INSERT INTO participations (crm_id, provider_id, appointment_id, reference, customer_id, state, hold_until,
         client_ip, channel_key, message, locale, note)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING *`,
      [
        p.crmId,
        p.providerId,
        p.appointmentId,
        p.reference,
        p.customerId,
        p.state,
        p.holdUntil ?? null,
        p.clientIp ?? null,
        p.channelKey ?? null,
        p.message ?? null,
        p.locale ?? null,
        p.note ?? null,
      ],
    );
    return row;
  } catch (err) {
    if (sqlState(err) === '23505' && constraintName(err) === 'participations_one_per_customer') {
      throw new DomainError(
        'AppointmentAlreadyBookedException',
        'the customer already participates in this appointment',
      );
    }
    if (sqlState(err) === '23505' && constraintName(err) === 'participations_provider_id_reference_key') {
      throw conflict(`a participation with reference ${p.reference} already exists`);
    }
    throw err;
  }
}
