/** What scheduling answers: appointments with their participations, and single participations. */
import type { Queryable } from '../storage/db.js';
import {
  LIVE_PARTICIPATION_SQL,
  liveParticipationSql,
  type AppointmentRow,
  type ParticipationRow,
} from './capacity.js';
import type { StoredAddress } from './address.js';
import { formatInstant } from './time.js';
import { storedAnswers, type StoredAnswer } from '../notifications/answers.js';

export interface ParticipantView {
  reference: string;
  uuid: string;
  customerReference: string | null;
  name: string | null;
  email: string | null;
  mobile: string | null;
  note: string | null;
  state: string;
  messages: string[];
  /** the consumer's answers to the product's booking questions, labels as at booking time */
  answers: StoredAnswer[];
}

export interface AppointmentView {
  reference: string;
  uuid: string;
  start: string;
  end: string;
  capacity: number;
  capacityLeft: number;
  acceptBookings: boolean;
  state: string;
  seriesId: string | null;
  archived: boolean;
  description: string | null;
  notes: string | null;
  productReference: string | null;
  productName: string | null;
  resourceReference: string | null;
  contactReference: string | null;
  address: StoredAddress | null;
  price: { value: number; currency: string } | null;
  participations: ParticipantView[];
}

export interface AppointmentFilter {
  providerId: string;
  ids?: string[];
  resourceId?: string;
  productId?: string;
  includeArchived?: boolean;
  /** appointments overlapping [from, to) */
  from?: Date;
  to?: Date;
}

interface AppointmentJoinRow extends AppointmentRow {
  product_reference: string | null;
  product_default_name: string | null;
  resource_reference: string | null;
  resource_address: StoredAddress | null;
  contact_reference: string | null;
  live: number;
}

interface ParticipantRow extends ParticipationRow {
  note: string | null;
  customer_reference: string | null;
  user_name: string | null;
  email: string | null;
  mobile: string | null;
}

function participantView(row: ParticipantRow): ParticipantView {
  return {
    reference: row.reference,
    uuid: row.id,
    customerReference: row.customer_reference,
    name: row.user_name,
    email: row.email,
    mobile: row.mobile,
    note: row.note,
    state: row.state,
    messages: row.message ? [row.message] : [],
    answers: storedAnswers(row.answers),
  };
}

/**
 * Appointments of a provider with their participations (expired holds left out), in time order.
 * The address falls back to the resource's, as in mails.
 */
export async function loadAppointmentViews(
  db: Queryable,
  zone: string,
  now: Date,
  f: AppointmentFilter,
): Promise<AppointmentView[]> {
  if (f.ids && f.ids.length === 0) return [];
  // $2 is `now`: LIVE_PARTICIPATION_SQL refers to it.
  const rows = await db.query<AppointmentJoinRow>(
    `SELECT a.*, pr.reference AS product_reference, pr.name AS product_default_name, r.reference AS resource_reference,
            r.address AS resource_address, u.reference AS contact_reference,
            (SELECT count(*)::int FROM participations WHERE appointment_id = a.id AND ${LIVE_PARTICIPATION_SQL}) AS live
       FROM appointments a
       LEFT JOIN products pr ON pr.id = a.product_id
       LEFT JOIN resources r ON r.id = a.resource_id
       LEFT JOIN users u ON u.id = a.contact_user_id
      WHERE a.provider_id = $1
        AND ($3::uuid[] IS NULL OR a.id = ANY($3::uuid[]))
        AND ($4::uuid IS NULL OR a.resource_id = $4)
        AND ($5::uuid IS NULL OR a.product_id = $5)
        AND ($6::boolean OR NOT a.archived)
        AND ($7::timestamptz IS NULL OR a.end_at > $7)
        AND ($8::timestamptz IS NULL OR a.start_at < $8)
      ORDER BY a.start_at, a.reference`,
    [
      f.providerId,
      now,
      f.ids ?? null,
      f.resourceId ?? null,
      f.productId ?? null,
      f.includeArchived ?? false,
      f.from ?? null,
      f.to ?? null,
    ],
  );
  if (rows.length === 0) return [];
  const participants = await db.query<ParticipantRow>(
    `SELECT p.*, c.reference AS customer_reference, c.user_name, c.email, c.mobile
       FROM participations p LEFT JOIN customers c ON c.id = p.customer_id
      WHERE p.appointment_id = ANY($1::uuid[]) AND (p.state <> 'RESERVED' OR ${liveParticipationSql('$2', 'p')})
      ORDER BY p.created_at, p.reference`,
    [rows.map((r) => r.id), now],
  );
  const byAppointment = new Map<string, ParticipantView[]>();
  for (const p of participants) {
    const list = byAppointment.get(p.appointment_id) ?? [];
    list.push(participantView(p));
    byAppointment.set(p.appointment_id, list);
  }
  return rows.map((a) => ({
    reference: a.reference,
    uuid: a.id,
    start: formatInstant(a.start_at, zone),
    end: formatInstant(a.end_at, zone),
    capacity: a.capacity,
    capacityLeft: Math.max(0, a.capacity - a.live),
    acceptBookings: a.accept_bookings,
    state: a.state,
    seriesId: a.series_id,
    archived: a.archived,
    description: a.description,
    notes: a.notes,
    productReference: a.product_reference,
    productName: a.product_name ?? a.product_default_name,
    resourceReference: a.resource_reference,
    contactReference: a.contact_reference,
    address: (a.address as StoredAddress | null) ?? a.resource_address,
    price:
      a.price_value === null || a.price_currency === null
        ? null
        : { value: Number(a.price_value), currency: a.price_currency },
    participations: byAppointment.get(a.id) ?? [],
  }));
}

export interface ParticipationView {
  reference: string;
  uuid: string;
  appointmentReference: string;
  customerReference: string | null;
  state: string;
  message: string | null;
  answers: StoredAnswer[];
}

export async function loadParticipationView(db: Queryable, participationId: string): Promise<ParticipationView> {
  const [row] = await db.query<ParticipationView>(
    `SELECT p.reference, p.id AS uuid, a.reference AS "appointmentReference", c.reference AS "customerReference",
       p.state, p.message,
            COALESCE(p.answers, '[]'::jsonb) AS answers
       FROM participations p JOIN appointments a ON a.id = p.appointment_id LEFT JOIN customers c
         ON c.id = p.customer_id
      WHERE p.id = $1`,
    [participationId],
  );
  return row;
}
