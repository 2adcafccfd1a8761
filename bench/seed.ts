/**
 * Bench data, set up through the partner API (in-process, app.inject) as a partner would:
 * W1: one resource, 28 days of availability 08:00-18:00 at raster 30 (560 slots), 150 existing
 *     appointments (100 single, booked full; 50 groups of 3 with one participant).
 * W2: BOOKING_RESOURCES resources with long days at raster 10, far more slots than 20 s can book.
 */
import { randomBytes } from 'node:crypto';
import { DateTime } from 'luxon';
import type { App } from '../src/app.js';
import { ensureKey } from '../src/partners/apiKeys.js';
import type { Db } from '../src/storage/db.js';

const ZONE = 'Europe/Berlin';
export const W2_RESOURCES = 25;
export const W2_RASTER = 10;
const W2_DAYS = 30;

type Call = (method: 'POST' | 'PUT', path: string, body: unknown) => Promise<Record<string, any>>;

async function partner(app: App, db: Db): Promise<{ call: Call; providerRef: string }> {
  const crmId = `bench-${randomBytes(3).toString('hex')}`;
  const key = randomBytes(16).toString('hex');
  await ensureKey(db, crmId, key);
  const call: Call = async (method, path, body) => {
    const res = await app.inject({ method, url: `/crms/${crmId}${path}`, headers: { 'x-service-client-id': key }, payload: body as object });
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  await call('POST', '/user', { reference: 'owner@bench', email: `owner-${crmId}@bench.example`, username: `owner-${crmId}`, lastName: 'Owner' });
  await call('POST', '/account', { accountReference: 'acc@bench', ownerReference: 'owner@bench', branch: 'real-estate' });
  await call('POST', '/provider', { reference: 'prov@bench', ownerReference: 'owner@bench', accountReference: 'acc@bench', name: 'Bench Estates', email: 'provider@bench.example', timeZone: ZONE });
  return { call, providerRef: 'prov@bench' };
}

const day = (offset: number) => DateTime.now().setZone(ZONE).startOf('day').plus({ days: offset });
const wall = (dt: DateTime) => dt.toFormat("yyyy-MM-dd'T'HH:mm");

export interface W1Data {
  resourceUuid: string;
  productUuid: string;
}

export async function seedW1(app: App, db: Db): Promise<W1Data> {
  const { call, providerRef } = await partner(app, db);
  const base = `/provider/${providerRef}`;
  const product = (await call('POST', `${base}/products`, { reference: 'viewing@bench', name: 'Viewing' })).product;
  const resource = await call('POST', `${base}/resources`, { reference: 'flat@bench', publicName: 'Flat', internalName: 'F', products: ['viewing@bench'] });
  const timeslots = Array.from({ length: 28 }, (_, i) => ({
    resourceReference: 'flat@bench', start: wall(day(i + 1).set({ hour: 8 })), end: wall(day(i + 1).set({ hour: 18 })),
    raster: 30, defaultCapacity: 1, defaultAcceptBookings: true, state: 'BOOKABLE',
  }));
  await call('POST', `${base}/timeslots`, { timeslots });
  await call('POST', `${base}/customers`, { customerReference: 'cust@bench', providerReference: providerRef, userName: 'Bench Customer', email: 'customer@bench.example' });
  for (let i = 0; i < 150; i++) {
    const slot = Math.floor((i * 560) / 150);
    const start = day(1 + Math.floor(slot / 20)).set({ hour: 8 }).plus({ minutes: (slot % 20) * 30 });
    const group = i % 3 === 0;
    const reference = `apt-${i}@bench`;
    await call('POST', `${base}/appointments`, {
      reference, start: wall(start), end: wall(start.plus({ minutes: 30 })), resourceReference: 'flat@bench', productReference: 'viewing@bench',
      capacity: group ? 3 : 1, acceptBookings: true,
    });
    await call('POST', `${base}/participations?sendMails=false`, { reference: `part-${i}@bench`, appointmentReference: reference, customerReference: 'cust@bench', state: 'BOOKED' });
  }
  return { resourceUuid: resource.uuid, productUuid: product.uuid };
}

export interface W2Data {
  resourceUuids: string[];
  productUuid: string;
  /** per resource, per day: the day's timeslot (06:00-22:00 at raster W2_RASTER) */
  timeslotUuids: string[][];
  slotsPerDay: number;
  dayStartsMs: number[];
}

export async function seedW2(app: App, db: Db): Promise<W2Data> {
  const { call, providerRef } = await partner(app, db);
  const base = `/provider/${providerRef}`;
  const product = (await call('POST', `${base}/products`, { reference: 'visit@bench', name: 'Visit' })).product;
  const resourceUuids: string[] = [];
  const timeslotUuids: string[][] = [];
  const days = Array.from({ length: W2_DAYS }, (_, i) => day(i + 1));
  for (let r = 0; r < W2_RESOURCES; r++) {
    const reference = `room-${r}@bench`;
    resourceUuids.push((await call('POST', `${base}/resources`, { reference, publicName: `Room ${r}`, internalName: `R${r}`, products: ['visit@bench'] })).uuid);
    const created = await call('POST', `${base}/timeslots`, {
      timeslots: days.map((d) => ({
        resourceReference: reference, start: wall(d.set({ hour: 6 })), end: wall(d.set({ hour: 22 })),
        raster: W2_RASTER, defaultCapacity: 1, defaultAcceptBookings: true, state: 'BOOKABLE',
      })),
    });
    timeslotUuids.push(created.timeslots.map((ts: { uuid: string }) => ts.uuid));
  }
  return {
    resourceUuids,
    timeslotUuids,
    productUuid: product.uuid,
    slotsPerDay: (16 * 60) / W2_RASTER,
    dayStartsMs: days.map((d) => d.set({ hour: 6 }).toMillis()),
  };
}

/** The n-th distinct (resource, slot) of the W2 data. */
export function w2Slot(data: W2Data, n: number): { resourceUuid: string; timeslotUuid: string; from: string; to: string } {
  const r = n % data.resourceUuids.length;
  const k = Math.floor(n / data.resourceUuids.length);
  const dayIndex = Math.floor(k / data.slotsPerDay);
  if (dayIndex >= data.dayStartsMs.length) throw new Error('W2 ran out of seeded slots');
  const startMs = data.dayStartsMs[dayIndex] + (k % data.slotsPerDay) * W2_RASTER * 60_000;
  return { resourceUuid: data.resourceUuids[r], timeslotUuid: data.timeslotUuids[r][dayIndex], from: new Date(startMs).toISOString(), to: new Date(startMs + W2_RASTER * 60_000).toISOString() };
}
