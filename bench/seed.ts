/**
 * Bench data, set up through the partner API (in-process, app.inject) as a partner would:
 * W1 (and FEED, the same resource's calendar feed): one resource, 28 days of availability 08:00-18:00 at raster 30 (560
 * slots), 150 existing
 *     appointments (100 single, booked full; 50 groups of 3 with one participant).
 * Booking workloads (W2, W2-hot, W3): a provider with some resources and long days of
 *     availability, far more slots than a run can book.
 * RUSH and COLD: W1's listing (one resource, 28 days 08:00-18:00 at raster 30: 560 slots) as a
 *     booking workload's resource, with 20 places per slot: every booking changes the listing, and
 *     15 s of booking cannot use up its 11,200 places.
 */
import { randomBytes } from 'node:crypto';
import { DateTime } from 'luxon';
import type { App } from '../src/app.js';
import { ensureKey } from '../src/partners/apiKeys.js';
import type { Db } from '../src/storage/db.js';

const ZONE = 'Europe/Berlin';

// biome-ignore lint/suspicious/noExplicitAny: the service's JSON answers, read field by field
type Call = (method: 'POST' | 'PUT', path: string, body: unknown) => Promise<Record<string, any>>;

export interface PartnerAccess {
  crmId: string;
  key: string;
  providerRef: string;
}

export async function partner(app: App, db: Db): Promise<{ call: Call } & PartnerAccess> {
  const crmId = `bench-${randomBytes(3).toString('hex')}`;
  const key = randomBytes(16).toString('hex');
  await ensureKey(db, crmId, key);
  const call: Call = async (method, path, body) => {
    const res = await app.inject({
      method,
      url: `/crms/${crmId}${path}`,
      headers: { 'x-service-client-id': key },
      payload: body as object,
    });
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  return withProvider(call, crmId, key);
}

/**
 * A partner of a running service over HTTP, its key given to the service at start (API_KEYS): seeds
 * any commit's build the same way (bench/cached.ts).
 */
export function httpPartner(baseUrl: string, crmId: string, key: string): Promise<{ call: Call } & PartnerAccess> {
  const call: Call = async (method, path, body) => {
    const res = await fetch(`${baseUrl}/crms/${crmId}${path}`, {
      method,
      headers: { 'x-service-client-id': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  return withProvider(call, crmId, key);
}

async function withProvider(call: Call, crmId: string, key: string): Promise<{ call: Call } & PartnerAccess> {
  await call('POST', '/user', {
    reference: 'owner@bench',
    email: `owner-${crmId}@bench.example`,
    username: `owner-${crmId}`,
    lastName: 'Owner',
  });
  await call('POST', '/account', {
    accountReference: 'acc@bench',
    ownerReference: 'owner@bench',
    branch: 'real-estate',
  });
  await call('POST', '/provider', {
    reference: 'prov@bench',
    ownerReference: 'owner@bench',
    accountReference: 'acc@bench',
    name: 'Bench Estates',
    email: 'provider@bench.example',
    timeZone: ZONE,
  });
  return { call, crmId, key, providerRef: 'prov@bench' };
}

const day = (offset: number) => DateTime.now().setZone(ZONE).startOf('day').plus({ days: offset });
const wall = (dt: DateTime) => dt.toFormat("yyyy-MM-dd'T'HH:mm");

export interface W1Data {
  partner: PartnerAccess;
  resourceUuid: string;
  resourceRef: string;
  productUuid: string;
}

export async function seedW1(app: App, db: Db): Promise<W1Data> {
  return seedW1With(await partner(app, db));
}

/** W1's resource, seeded by the given partner. */
export async function seedW1With({ call, ...access }: { call: Call } & PartnerAccess): Promise<W1Data> {
  const base = `/provider/${access.providerRef}`;
  const product = (await call('POST', `${base}/products`, { reference: 'viewing@bench', name: 'Viewing' })).product;
  await call('POST', `${base}/customers`, {
    customerReference: 'cust@bench',
    providerReference: access.providerRef,
    userName: 'Bench Customer',
    email: 'customer@bench.example',
  });
  const resourceUuid = await seedW1Resource(call, access.providerRef, 'flat@bench');
  return { partner: access, resourceUuid, resourceRef: 'flat@bench', productUuid: product.uuid };
}

/**
 * A resource shaped as W1's (28 days 08:00-18:00 at raster 30, 150 appointments of product
 * viewing@bench booked by customer cust@bench, which must exist), or as many days with as many
 * appointments per day; returns its uuid.
 */
export async function seedW1Resource(call: Call, providerRef: string, resourceRef: string, days = 28): Promise<string> {
  const base = `/provider/${providerRef}`;
  const resource = await call('POST', `${base}/resources`, {
    reference: resourceRef,
    publicName: 'Flat',
    internalName: 'F',
    products: ['viewing@bench'],
  });
  const timeslots = Array.from({ length: days }, (_, i) => ({
    resourceReference: resourceRef,
    start: wall(day(i + 1).set({ hour: 8 })),
    end: wall(day(i + 1).set({ hour: 18 })),
    raster: 30,
    defaultCapacity: 1,
    defaultAcceptBookings: true,
    state: 'BOOKABLE',
  }));
  await call('POST', `${base}/timeslots`, { timeslots });
  const slots = days * 20;
  const appointments = Math.round((150 * days) / 28);
  for (let i = 0; i < appointments; i++) {
    const slot = Math.floor((i * slots) / appointments);
    const start = day(1 + Math.floor(slot / 20))
      .set({ hour: 8 })
      .plus({ minutes: (slot % 20) * 30 });
    const group = i % 3 === 0;
    const reference = `apt-${i}-${resourceRef}`;
    await call('POST', `${base}/appointments`, {
      reference,
      start: wall(start),
      end: wall(start.plus({ minutes: 30 })),
      resourceReference: resourceRef,
      productReference: 'viewing@bench',
      capacity: group ? 3 : 1,
      acceptBookings: true,
    });
    await call('POST', `${base}/participations?sendMails=false`, {
      reference: `part-${i}-${resourceRef}`,
      appointmentReference: reference,
      customerReference: 'cust@bench',
      state: 'BOOKED',
    });
  }
  return resource.uuid;
}

/**
 * BUSY: two W1-shaped resources of one provider, the second with `busyIntervals` closures of its own at night
 * (01:00-07:00), so both list the same slots.
 */
export interface BusyData {
  partner: PartnerAccess;
  productUuid: string;
  plainUuid: string;
  busyUuid: string;
  busyIntervals: number;
}

export async function seedBusy(app: App, db: Db, busyIntervals = 500): Promise<BusyData> {
  const { call, ...access } = await partner(app, db);
  const base = `/provider/${access.providerRef}`;
  const product = (await call('POST', `${base}/products`, { reference: 'viewing@bench', name: 'Viewing' })).product;
  await call('POST', `${base}/customers`, {
    customerReference: 'cust@bench',
    providerReference: access.providerRef,
    userName: 'Bench Customer',
    email: 'customer@bench.example',
  });
  const plainUuid = await seedW1Resource(call, access.providerRef, 'plain@bench');
  const busyUuid = await seedW1Resource(call, access.providerRef, 'busy@bench');
  const perNight = Math.ceil(busyIntervals / 28);
  for (let i = 0; i < busyIntervals; i++) {
    const start = day(1 + Math.floor(i / perNight))
      .set({ hour: 1 })
      .plus({ minutes: (i % perNight) * 20 });
    await call('POST', `${base}/closures`, {
      resourceReference: 'busy@bench',
      start: wall(start),
      end: wall(start.plus({ minutes: 10 })),
    });
  }
  return { partner: access, productUuid: product.uuid, plainUuid, busyUuid, busyIntervals };
}

export interface BookingShape {
  resources: number;
  days: number;
  /** minutes per slot */
  raster: number;
  /** the days' opening hours, local time; default 06:00-22:00 */
  hours?: [from: number, to: number];
  /** places per slot (the timeslots' defaultCapacity); default 1 */
  capacity?: number;
}

export interface BookingData {
  partner: PartnerAccess;
  resourceUuids: string[];
  resourceRefs: string[];
  productUuid: string;
  productRef: string;
  /** the resources' contact user, who has a general contact profile */
  contactRef: string;
  /** per resource, per day: the day's timeslot */
  timeslotUuids: string[][];
  raster: number;
  slotsPerDay: number;
  dayStartsMs: number[];
  /** places per slot */
  capacity: number;
}

/**
 * A provider whose resources share one product and one contact (with a general profile), each with long bookable days.
 */
export async function seedBooking(app: App, db: Db, shape: BookingShape): Promise<BookingData> {
  const [from, to] = shape.hours ?? [6, 22];
  const capacity = shape.capacity ?? 1;
  const { call, ...access } = await partner(app, db);
  const base = `/provider/${access.providerRef}`;
  const product = (await call('POST', `${base}/products`, { reference: 'visit@bench', name: 'Visit' })).product;
  const contactRef = 'contact@bench';
  await call('POST', '/user', {
    reference: contactRef,
    email: `contact-${access.crmId}@bench.example`,
    username: `contact-${access.crmId}`,
    lastName: 'Contact',
  });
  await call('PUT', `/user/${contactRef}/generalContactProfile`, {
    name: 'Bench Contact',
    contactChannels: [{ type: 'email', value: 'contact@bench.example' }],
  });
  const resourceUuids: string[] = [];
  const resourceRefs: string[] = [];
  const timeslotUuids: string[][] = [];
  const days = Array.from({ length: shape.days }, (_, i) => day(i + 1));
  for (let r = 0; r < shape.resources; r++) {
    const reference = `room-${r}@bench`;
    const body = {
      reference,
      publicName: `Room ${r}`,
      internalName: `R${r}`,
      products: ['visit@bench'],
      contact: contactRef,
    };
    resourceUuids.push((await call('POST', `${base}/resources`, body)).uuid);
    resourceRefs.push(reference);
    const uuids: string[] = [];
    for (let d = 0; d < days.length; d += 100) {
      const created = await call('POST', `${base}/timeslots`, {
        timeslots: days.slice(d, d + 100).map((dt) => ({
          resourceReference: reference,
          start: wall(dt.set({ hour: from })),
          end: wall(dt.set({ hour: to })),
          raster: shape.raster,
          defaultCapacity: capacity,
          defaultAcceptBookings: true,
          state: 'BOOKABLE',
        })),
      });
      uuids.push(...created.timeslots.map((ts: { uuid: string }) => ts.uuid));
    }
    timeslotUuids.push(uuids);
  }
  return {
    partner: access,
    resourceUuids,
    resourceRefs,
    timeslotUuids,
    productUuid: product.uuid,
    productRef: 'visit@bench',
    contactRef,
    raster: shape.raster,
    slotsPerDay: ((to - from) * 60) / shape.raster,
    dayStartsMs: days.map((d) => d.set({ hour: from }).toMillis()),
    capacity,
  };
}

/** RUSH's and COLD's data (see the top of this file). */
export const seedRush = (app: App, db: Db): Promise<BookingData> =>
  seedBooking(app, db, { resources: 1, days: 28, raster: 30, hours: [8, 18], capacity: 20 });

export interface Slot {
  resourceUuid: string;
  timeslotUuid: string;
  from: string;
  to: string;
}

/** How many distinct (resource, slot) the data has. */
export const slotCount = (data: BookingData) => data.resourceUuids.length * data.dayStartsMs.length * data.slotsPerDay;

/** The n-th distinct (resource, slot) of the data: resources round-robin, then slots in time order. */
export function nthSlot(data: BookingData, n: number): Slot {
  const r = n % data.resourceUuids.length;
  const k = Math.floor(n / data.resourceUuids.length);
  const dayIndex = Math.floor(k / data.slotsPerDay);
  if (dayIndex >= data.dayStartsMs.length) throw new Error('the bench ran out of seeded slots');
  const startMs = data.dayStartsMs[dayIndex] + (k % data.slotsPerDay) * data.raster * 60_000;
  return {
    resourceUuid: data.resourceUuids[r],
    timeslotUuid: data.timeslotUuids[r][dayIndex],
    from: new Date(startMs).toISOString(),
    to: new Date(startMs + data.raster * 60_000).toISOString(),
  };
}

/**
 * Where seedHistory puts the past bookings; default: an archive
 * resource of their own, the latest ending 10 minutes ago.
 */
export interface HistoryPlace {
  /** the data's resource to put them on instead (their appointments end before any of its slots) */
  resourceUuid?: string;
  /** days before now the latest of them ends */
  endedDaysAgo?: number;
}

/**
 * What a database in service holds besides the bench's own slots: `consumers` past consumers (users
 * and the provider's customers) with one past booking each, 30 minutes apart going back from the
 * latest, and their mails.
 * Written in bulk SQL (history, not what is measured), so the planner's statistics describe tables
 * of realistic size, as they would after a while in service.
 */
export async function seedHistory(
  app: App,
  db: Db,
  data: BookingData,
  consumers: number,
  place: HistoryPlace = {},
): Promise<void> {
  const { crmId, key, providerRef } = data.partner;
  let resourceUuid = place.resourceUuid;
  if (!resourceUuid) {
    const res = await app.inject({
      method: 'POST',
      url: `/crms/${crmId}/provider/${providerRef}/resources`,
      headers: { 'x-service-client-id': key },
      payload: { reference: 'archive@bench', publicName: 'Archive', internalName: 'A', products: [data.productRef] },
    });
    if (res.statusCode !== 201) throw new Error(`archive resource: ${res.statusCode} ${res.body}`);
    resourceUuid = res.json().uuid as string;
  }
  await db.query(
    `WITH prov AS (SELECT id FROM providers WHERE crm_id = $1 AND reference = $2),
          u AS (INSERT INTO users (crm_id, email, username, first_name, last_name, language)
                SELECT $1, 'past-' || g || '@bench.example', 'past-' || g || '@bench.example', 'Past', 'Consumer ' || g,
                  'de'
                  FROM generate_series(1, $4::int) g RETURNING id, email, last_name),
          c AS (INSERT INTO customers (crm_id, provider_id, user_id, reference, user_name, email, language)
                SELECT $1, prov.id, u.id, 'customer-' || u.id, 'Past ' || u.last_name, u.email, 'de' FROM u, prov
                  RETURNING id),
          numbered AS (SELECT id, now() - $6::int * interval '1 day' - row_number() OVER () * interval '30 min' AS
            start_at,
                              row_number() OVER () AS n FROM c),
          a AS (INSERT INTO appointments (crm_id, provider_id, resource_id, product_id, reference, start_at, end_at,
            blocked_from, blocked_until,
                                          capacity, accept_bookings, created_by_public_flow)
                SELECT $1, prov.id, $3::uuid, $5::uuid, 'past-' || n || '@bench', start_at,
                  start_at + interval '20 min',
                       start_at, start_at + interval '20 min', 1, true, true
                  FROM numbered, prov RETURNING id, reference)
     INSERT INTO participations (crm_id, provider_id, appointment_id, reference, customer_id, state, channel_key)
     SELECT $1, prov.id, a.id, a.reference, numbered.id, 'BOOKED', 'public'
       FROM a JOIN numbered ON a.reference = 'past-' || numbered.n || '@bench', prov`,
    [crmId, providerRef, resourceUuid, consumers, data.productUuid, place.endedDaysAgo ?? 0],
  );
  await db.query(
    `INSERT INTO outbox (crm_id, template, recipient, locale, payload, status, sent_at)
     SELECT $1, 'booking-confirmed', email, 'de', '{}'::jsonb, 'SENT', now() FROM customers WHERE crm_id = $1`,
    [crmId],
  );
}

/**
 * What the service writes about each booking besides the mail to the consumer, for the crm's
 * booked participations: the provider's notification (a mail about it, naming the participant)
 * and a webhook event with the customer and the message. What an erasure scrubs.
 */
export async function seedTraces(db: Db, crmId: string): Promise<void> {
  await db.query(
    `INSERT INTO outbox (crm_id, template, recipient, locale, payload, status, sent_at)
     SELECT $1, 'provider-booking-notification', 'provider@bench.example', 'de',
            jsonb_build_object('participation', jsonb_build_object('uuid', p.id), 'participant',
              jsonb_build_object('name', c.user_name, 'email', c.email),
                               'message', 'Hello from ' || c.user_name),
            'SENT', now()
       FROM participations p JOIN customers c ON c.id = p.customer_id WHERE p.crm_id = $1`,
    [crmId],
  );
  await db.query(
    `INSERT INTO webhook_events (crm_id, type, body)
     SELECT $1, 'participation.booked',
            json_build_object('type', 'participation.booked', 'timestamp', now(),
                              'data', json_build_object('participation', json_build_object('uuid', p.id, 'message',
                                'Hello from ' || c.user_name),
                                                        'customer', json_build_object('name', c.user_name, 'email',
                                                          c.email)))::text
       FROM participations p JOIN customers c ON c.id = p.customer_id WHERE p.crm_id = $1`,
    [crmId],
  );
}
