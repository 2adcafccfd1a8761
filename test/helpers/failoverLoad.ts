/**
 * Consumers booking through a database outage (DESIGN.md §7.13), shared by the restart and failover
 * tests and the bench phase FAILOVER. The service runs as its own process (`dist/main.js`) on the
 * DATABASE_URL given; consumers hold (A2) and book (A3, each with an Idempotency-Key) distinct
 * slots while `breakDb` takes the database away and `healDb` brings a writable one back (a restart,
 * or the standby promoted). Afterwards every A3 answered 503 is retried with its key, and what the
 * answers said is held to what the database (`checkUrl`, the new primary) holds.
 */
import { DateTime } from 'luxon';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { startServiceProcess, type ServiceProcess } from './process.js';
import { SmtpSink } from './smtpSink.js';

const ZONE = 'Europe/Berlin';
const uniqueId = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

export interface OutageScenario {
  /** the service's DATABASE_URL */
  databaseUrl: string;
  /** a single-host URL of the writable database after the outage, where the test looks */
  checkUrl: string;
  /** takes the database away (kill -9 of the primary) */
  breakDb(): Promise<void>;
  /** brings a writable database back (a start, a promotion); resolves once done */
  healDb(): Promise<void>;
  consumers?: number;
  /** bookings answered 201 before the database is taken away */
  bookingsBefore?: number;
  /** bookings answered 201 after it, before the load stops */
  bookingsAfter?: number;
  /** extra environment of the service */
  env?: Record<string, string>;
  log?: (line: string) => void;
}

export interface OutageFigures {
  /** bookings answered 201 (before, during and after the outage, retries included) */
  acknowledged: number;
  /** of them, not BOOKED on the database afterwards: must be 0 */
  lost: number;
  /** A3 answers by status */
  statuses: Record<number, number>;
  /** every answer of the service by status (A2, A3, /readyz) during the run */
  answers503: number;
  answers500: number;
  /** 503 answers without Retry-After or the documented error body: must be 0 */
  undocumented503: number;
  /** longest time any request took, ms */
  longestRequestMs: number;
  /** from the database's death (breakDb() resolved) to the first 201 of a booking asked for after it */
  msToFirst201: number;
  /** from healDb() resolving to the first 201 of a booking asked for after it */
  msFromHealTo201: number;
  /** /readyz answers while the database was away, and after */
  readyDuringOutage: number[];
  readyAfter: number;
  /** A1 answers while the database was away */
  listingDuringOutage: number[];
  /** A3 answered 503 and retried with the same Idempotency-Key afterwards: status of the retry, and the truth */
  retries: { status: number; booked: boolean }[];
  /** acknowledged bookings whose confirmation mail had not arrived at the end */
  mailsMissing: number;
  /** the service process still ran (a lost database never ends it) */
  serviceAlive: boolean;
}

interface Slot {
  timeslotUuid: string;
  from: string;
  to: string;
}

/** A partner with a provider, a product, a resource and 20 days of half-hour slots. */
export async function setUp(base: string, crmId: string, key: string) {
  const partner = async (method: 'POST' | 'PUT', path: string, body: unknown) => {
    const res = await fetch(`${base}/crms/${crmId}${path}`, {
      method,
      headers: { 'x-service-client-id': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  await partner('POST', '/user', {
    reference: 'owner@fo',
    email: 'owner@fo.example',
    username: 'owner-fo',
    lastName: 'O',
  });
  await partner('POST', '/account', { accountReference: 'acc@fo', ownerReference: 'owner@fo', branch: 'real-estate' });
  await partner('POST', '/provider', {
    reference: 'prov@fo',
    ownerReference: 'owner@fo',
    accountReference: 'acc@fo',
    name: 'Failover Estates',
    email: 'provider@fo.example',
    timeZone: ZONE,
  });
  const product = (await partner('POST', '/provider/prov@fo/products', { reference: 'visit@fo', name: 'Visit' }))
    .product;
  const resource = await partner('POST', '/provider/prov@fo/resources', {
    reference: 'room@fo',
    publicName: 'Room',
    internalName: 'R',
    products: ['visit@fo'],
  });
  const days = Array.from({ length: 30 }, (_, i) =>
    DateTime.now()
      .setZone(ZONE)
      .startOf('day')
      .plus({ days: i + 1 }),
  );
  const wall = (d: DateTime) => d.toFormat("yyyy-MM-dd'T'HH:mm");
  const created = await partner('POST', '/provider/prov@fo/timeslots', {
    timeslots: days.map((d) => ({
      resourceReference: 'room@fo',
      start: wall(d.set({ hour: 8 })),
      end: wall(d.set({ hour: 18 })),
      raster: 30,
      defaultCapacity: 1,
      defaultAcceptBookings: true,
      state: 'BOOKABLE',
    })),
  });
  const slots: Slot[] = days.flatMap((d, i) =>
    Array.from({ length: 20 }, (_, k) => {
      const from = d.set({ hour: 8 }).plus({ minutes: 30 * k });
      return {
        timeslotUuid: created.timeslots[i].uuid as string,
        from: from.toUTC().toISO()!,
        to: from.plus({ minutes: 30 }).toUTC().toISO()!,
      };
    }),
  );
  return { product: product as { uuid: string }, resource: resource as { uuid: string }, slots };
}

interface Answer {
  status: number;
  body: string;
  ms: number;
  retryAfter?: string | null;
}

/** A 503 as documented: Retry-After and the error body (DATABASE_UNAVAILABLE, or UNAVAILABLE on /readyz). */
function documented503(a: Answer): boolean {
  try {
    const code = JSON.parse(a.body).errors?.[0]?.errorCode;
    return /^\d+$/.test(a.retryAfter ?? '') && (code === 'DATABASE_UNAVAILABLE' || code === 'UNAVAILABLE');
  } catch {
    return false;
  }
}

export async function runOutage(scenario: OutageScenario): Promise<OutageFigures> {
  const { consumers = 6, bookingsBefore = 20, bookingsAfter = 10, log = () => undefined } = scenario;
  const sink = await SmtpSink.start();
  const crmId = uniqueId('fo');
  const key = uniqueId('key');
  let service: ServiceProcess | undefined;
  try {
    service = startServiceProcess({
      DATABASE_URL: scenario.databaseUrl,
      SMTP_URL: sink.url,
      API_KEYS: `${crmId}:${key}`,
      MAIL_POLL_MS: '50',
      MAX_HOLDS_PER_IP: '100000',
      BOOKING_RATE_LIMIT_PER_MINUTE: '100000',
      ...scenario.env,
    });
    const base = await service.listening;
    log(`service at ${base}`);
    const { product, resource, slots } = await setUp(base, crmId, key);
    log('partner data set up');

    const statuses: Record<number, number> = {};
    let answers503 = 0;
    let answers500 = 0;
    let undocumented503 = 0;
    let longestRequestMs = 0;
    const send = async (path: string, init: RequestInit): Promise<Answer> => {
      const started = performance.now();
      let answer: Answer;
      try {
        const res = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(30_000) });
        answer = {
          status: res.status,
          body: await res.text(),
          ms: performance.now() - started,
          retryAfter: res.headers.get('retry-after'),
        };
      } catch {
        answer = { status: 0, body: '', ms: performance.now() - started };
      }
      longestRequestMs = Math.max(longestRequestMs, answer.ms);
      if (answer.status === 503) answers503++;
      if (answer.status === 503 && !documented503(answer)) undocumented503++;
      if (answer.status >= 500 && answer.status !== 503) answers500++;
      return answer;
    };
    const post = (path: string, body: unknown, n: number, headers: Record<string, string> = {}) =>
      send(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.56.0.${n}`, ...headers },
        body: JSON.stringify(body),
      });

    const acknowledged = new Set<string>();
    /** A3 answered 503: retried afterwards with the same key */
    const unknown: { email: string; idempotencyKey: string; body: unknown }[] = [];
    let brokenAt = 0;
    let healedAt = 0;
    let first201AfterBreak = 0;
    let first201AfterHeal = 0;
    let bookedAfter = 0;
    let next = 0;
    let stop = false;
    const book = (n: number, body: unknown, idempotencyKey: string) =>
      post(`/resources/${resource.uuid}/create_appointment_with_consumer`, body, n, {
        'idempotency-key': idempotencyKey,
      });
    const consumerLoop = async (n: number) => {
      while (!stop) {
        const slot = slots[next++];
        if (!slot) return;
        const hold = { timeslot_uuid: slot.timeslotUuid, product_uuid: product.uuid, from: slot.from, to: slot.to };
        const held = await post(`/rest/1/resources/${resource.uuid}/reserve_appointment`, hold, n);
        if (held.status !== 201) {
          if (held.status === 503 || held.status === 0) await new Promise((r) => setTimeout(r, 200));
          continue;
        }
        const participation = JSON.parse(held.body).participation;
        const email = `${uniqueId('consumer')}@fo.example`;
        const body = {
          start: slot.from,
          end: slot.to,
          timeslot_uuid: slot.timeslotUuid,
          product_uuid: product.uuid,
          placeholder_id: participation.customer_uuid,
          email,
          firstname: 'Erika',
          lastname: 'Muster',
        };
        const idempotencyKey = uniqueId('idem');
        const sentAt = performance.now();
        const done = await book(n, body, idempotencyKey);
        statuses[done.status] = (statuses[done.status] ?? 0) + 1;
        if (done.status === 201) {
          acknowledged.add(email);
          // only bookings asked for after the database died (or came back) count for the times
          const now = performance.now();
          if (brokenAt && sentAt >= brokenAt && !first201AfterBreak) first201AfterBreak = now;
          if (healedAt && sentAt >= healedAt && !first201AfterHeal) first201AfterHeal = now;
          if (brokenAt && sentAt >= brokenAt) bookedAfter++;
        } else if (done.status === 503) {
          unknown.push({ email, idempotencyKey, body });
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    };
    const loops = Array.from({ length: consumers }, (_, n) => consumerLoop(n));
    const until = Date.now() + 120_000;
    while (acknowledged.size < bookingsBefore && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    if (acknowledged.size < bookingsBefore) throw new Error(`only ${acknowledged.size} bookings before the outage`);

    // readiness while the database is away, polled alongside the consumers
    const readyDuringOutage: number[] = [];
    let outage = true;
    const listingDuringOutage: number[] = [];
    const readyLoop = (async () => {
      while (outage) {
        readyDuringOutage.push((await send('/readyz', {})).status);
        // the slot listing (A1, its own pool) as a viewer polls it: 200 from the cache or 503, never 500
        listingDuringOutage.push((await send(`/resources/${resource.uuid}/upcoming_bookables`, {})).status);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    log(`outage: database taken away after ${acknowledged.size} bookings`);
    await scenario.breakDb();
    brokenAt = performance.now();
    await scenario.healDb();
    healedAt = performance.now();
    outage = false;
    await readyLoop;
    log(`outage: database back after ${Math.round(healedAt - brokenAt)} ms`);
    const afterUntil = Date.now() + 60_000;
    while (bookedAfter < bookingsAfter && Date.now() < afterUntil) await new Promise((r) => setTimeout(r, 20));
    stop = true;
    await Promise.all(loops);
    const readyAfter = (await send('/readyz', {})).status;

    log(`load stopped: ${JSON.stringify(statuses)}`);
    // every A3 answered 503, retried with its key: the answer must agree with the database
    const retried: { email: string; status: number }[] = [];
    for (const u of unknown) {
      let again = await book(0, u.body, u.idempotencyKey);
      // the first attempt's key is released once the database answers again: until then "in use, retry"
      for (let i = 0; i < 10 && again.status === 409 && again.body.includes('IDEMPOTENCY_KEY_IN_USE'); i++) {
        await new Promise((r) => setTimeout(r, 1000 * Number(again.retryAfter ?? 1)));
        again = await book(0, u.body, u.idempotencyKey);
      }
      retried.push({ email: u.email, status: again.status });
      if (again.status === 201) acknowledged.add(u.email);
    }

    const db = new pg.Client({ connectionString: scenario.checkUrl });
    db.on('error', () => undefined);
    await db.connect();
    let booked: Set<string>;
    try {
      const { rows } = await db.query<{ email: string }>(
        `SELECT c.email FROM participations p JOIN customers c ON c.id = p.customer_id
          WHERE p.state = 'BOOKED' AND c.email = ANY($1::text[])`,
        [[...acknowledged, ...unknown.map((u) => u.email)]],
      );
      booked = new Set(rows.map((r) => r.email));
    } finally {
      await db.end();
    }
    const lost = [...acknowledged].filter((e) => !booked.has(e)).length;

    log(`${unknown.length} retried; checked the database`);
    const mailed = () => [...acknowledged].filter((email) => !sink.mails.some((m) => m.to?.includes(email))).length;
    const mailUntil = Date.now() + 60_000;
    while (mailed() > 0 && Date.now() < mailUntil) await new Promise((r) => setTimeout(r, 250));

    return {
      acknowledged: acknowledged.size,
      lost,
      statuses,
      answers503,
      answers500,
      undocumented503,
      longestRequestMs: Math.round(longestRequestMs),
      msToFirst201: first201AfterBreak ? Math.round(first201AfterBreak - brokenAt) : -1,
      msFromHealTo201: first201AfterHeal ? Math.round(first201AfterHeal - healedAt) : -1,
      readyDuringOutage,
      listingDuringOutage,
      readyAfter,
      retries: retried.map((r) => ({ status: r.status, booked: booked.has(r.email) })),
      mailsMissing: mailed(),
      serviceAlive: service.child.exitCode === null,
    };
  } finally {
    service?.child.kill('SIGKILL');
    await service?.exited;
    await sink.close();
  }
}
