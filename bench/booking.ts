/**
 * Consumers booking through the public flow: each does reserve + create on a distinct slot, every
 * consumer from another address (as real traffic is), or all from one (a campus, an office, a
 * carrier's NAT), closed loop, for a fixed time (autocannon).
 */
import autocannon from 'autocannon';
import type { Db } from '../src/storage/db.js';
import type { Send, Timed } from './http.js';
import { nthSlot, slotCount, type BookingData, type Slot } from './seed.js';

export interface BookingRun {
  booked: number;
  seconds: number;
  perSecond: number;
  failures: Record<string, number>;
  p50: number;
  p99: number;
  max: number;
  /** mean latency of the requests (reserve and create alike), and how many were answered */
  mean: number;
  requests: number;
  errors: number;
}

/**
 * A source of places no other consumer of this bench process gets: the slots in nthSlot's order,
 * round after round while they have places left (one round when a slot has one place).
 */
export function slotCounter(data: BookingData): () => { n: number; slot: Slot } {
  const slots = slotCount(data);
  let next = 0;
  return () => {
    const n = next++;
    if (n >= slots * data.capacity) throw new Error('the bench ran out of seeded places');
    return { n, slot: nthSlot(data, n % slots) };
  };
}

const addressOf = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

export function reserveBody(data: BookingData, slot: Slot) {
  return { timeslot_uuid: slot.timeslotUuid, product_uuid: data.productUuid, from: slot.from, to: slot.to };
}

export function createBody(data: BookingData, slot: Slot, n: number, placeholder: string) {
  return {
    start: slot.from,
    end: slot.to,
    timeslot_uuid: slot.timeslotUuid,
    product_uuid: data.productUuid,
    placeholder_id: placeholder,
    email: `consumer-${n}@bench.example`,
    firstname: 'Bench',
    lastname: `Consumer ${n}`,
  };
}

/** A consumer's headers: its own address, or the one address given (every consumer behind one). */
export const clientHeaders = (n: number, address = addressOf(n)) => ({
  'content-type': 'application/json',
  'x-forwarded-for': address,
});

/** One consumer's booking through a client: reserve the place, then, when it is held, create the booking. */
export async function bookOnce(
  send: Send,
  data: BookingData,
  { n, slot }: { n: number; slot: Slot },
): Promise<{ reserved: Timed; created?: Timed }> {
  const headers = clientHeaders(n);
  const reserved = await send(
    'POST',
    `/rest/1/resources/${slot.resourceUuid}/reserve_appointment`,
    headers,
    reserveBody(data, slot),
  );
  if (reserved.status !== 201) return { reserved };
  const placeholder = JSON.parse(reserved.body).participation.customer_uuid;
  const created = await send(
    'POST',
    `/resources/${slot.resourceUuid}/create_appointment_with_consumer`,
    headers,
    createBody(data, slot, n, placeholder),
  );
  return { reserved, created };
}

/** Consumers booking, each a closed loop of reserve + create. */
export interface BookingLoad {
  consumers: number;
  /** seconds, or until the requests of that many bookings were sent */
  length: number | { bookings: number };
  /** where the places come from (default: a new slotCounter of the data) */
  take?: () => { n: number; slot: Slot };
  /** every consumer books from this address (the service's hold cap and rate limit raised for it) */
  oneAddress?: string;
  /** called the moment each hold is acknowledged (201) */
  onHeld?: () => void;
  /** called the moment each booking is acknowledged (201), with its consumer's number */
  onBooked?: (n: number) => void;
  /** each answered reserve's (A2) and create's (A3) latency in ms is pushed here (setup to answer) */
  steps?: { reserve: number[]; create: number[] };
}

export async function bookingRun(serverUrl: string, data: BookingData, load: BookingLoad): Promise<BookingRun> {
  const { consumers, length, take = slotCounter(data), oneAddress, onHeld, onBooked, steps } = load;
  let booked = 0;
  const failures: Record<string, number> = {};
  const fail = (step: string, status: number) =>
    (failures[`${step} ${status}`] = (failures[`${step} ${status}`] ?? 0) + 1);
  type Ctx = { slot?: Slot; n?: number; placeholder?: string; headers?: Record<string, string>; sent?: number };
  const started = Date.now();
  const result = await autocannon({
    url: serverUrl,
    connections: consumers,
    ...(typeof length === 'number' ? { duration: length } : { amount: 2 * length.bookings }),
    requests: [
      {
        method: 'POST',
        setupRequest: (req, context: Ctx) => {
          const { n, slot } = take();
          Object.assign(context, { n, slot, placeholder: undefined, headers: clientHeaders(n, oneAddress) });
          context.sent = performance.now();
          return {
            ...req,
            headers: context.headers,
            path: `/rest/1/resources/${slot.resourceUuid}/reserve_appointment`,
            body: JSON.stringify(reserveBody(data, slot)),
          };
        },
        onResponse: (status: number, body: string, context: Ctx) => {
          steps?.reserve.push(performance.now() - context.sent!);
          if (status === 201) {
            onHeld?.();
            context.placeholder = JSON.parse(body).participation.customer_uuid;
          } else fail('reserve', status);
        },
      },
      {
        method: 'POST',
        setupRequest: (req, context: Ctx) => {
          if (!context.placeholder || !context.slot) return null as never; // the hold failed: start over
          const s = context.slot;
          context.sent = performance.now();
          return {
            ...req,
            headers: context.headers,
            path: `/resources/${s.resourceUuid}/create_appointment_with_consumer`,
            body: JSON.stringify(createBody(data, s, context.n!, context.placeholder)),
          };
        },
        onResponse: (status: number, _body: string, context: Ctx) => {
          steps?.create.push(performance.now() - context.sent!);
          if (status === 201) {
            booked++;
            onBooked?.(context.n!);
          } else fail('create', status);
        },
      },
    ],
  });
  const elapsed = (Date.now() - started) / 1000;
  const { p50, p99, max, mean } = result.latency;
  return {
    booked,
    seconds: elapsed,
    perSecond: booked / elapsed,
    failures,
    p50,
    p99,
    max,
    mean,
    requests: result.requests.total,
    errors: result.errors,
  };
}

/**
 * No appointment over its capacity, no two live appointments of
 * a resource overlapping (as the database sees it afterwards).
 */
export async function overbookingCheck(db: Db, resourceUuids: string[]) {
  const [over] = await db.query<{ appointments: number; overbooked: number; booked: number }>(
    `SELECT count(*)::int AS appointments,
            count(*) FILTER (WHERE taken > capacity)::int AS overbooked,
            COALESCE(sum(booked), 0)::int AS booked
       FROM (SELECT a.capacity,
                    (SELECT count(*) FROM participations p WHERE p.appointment_id = a.id
                      AND (p.state IN ('REQUESTED', 'BOOKED') OR (p.state = 'RESERVED'
                      AND p.hold_until > now()))) AS taken,
                    (SELECT count(*) FROM participations p WHERE p.appointment_id = a.id
                      AND p.state = 'BOOKED') AS booked
               FROM appointments a WHERE a.resource_id = ANY($1::uuid[])) x`,
    [resourceUuids],
  );
  // an appointment starting before the latest end among those starting earlier overlaps one of them
  const [overlaps] = await db.query<{ n: number }>(
    `SELECT count(*) FILTER (WHERE start_at < earlier_end)::int AS n
       FROM (SELECT start_at, max(end_at) OVER (PARTITION BY resource_id
         ORDER BY start_at, id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_end
               FROM appointments WHERE resource_id = ANY($1::uuid[]) AND state = 'ACTIVE' AND NOT archived) x`,
    [resourceUuids],
  );
  return { ...over, overlapping: overlaps.n };
}
