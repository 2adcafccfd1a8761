/**
 * POOLS (issue 53, DESIGN 7.11): the cold A1 of a pool of 20 members against a single resource's,
 * side by side in one run; target: the pool's at most 2x. Every member, and the single resource,
 * is W1-shaped (28 days 08:00-18:00 at raster 30, 150 appointments). Taking turns, POOL_ROUNDS
 * times each: one booking (A3 on the pool, or on the resource), then ONE A1 of it (Accept-Encoding:
 * br, gzip), timed: the first read after a booking, which brings the cached data up to date with
 * the changed appointment and computes the listing anew. Also printed: the service's CPU per cold
 * A1 (from /proc, summed over the rounds) and the bytes of each answer.
 */
import type { App } from '../src/app.js';
import type { Db } from '../src/storage/db.js';
import { processTicks, TICK_MS } from './cpu.js';
import { client, Latencies } from './http.js';
import { partner, seedW1Resource, type PartnerAccess } from './seed.js';

export const POOL_ROUNDS = 60;
export const POOL_MEMBERS = 20;

export interface PoolsData {
  partner: PartnerAccess;
  productUuid: string;
  singleUuid: string;
  poolUuid: string;
}

export async function seedPools(app: App, db: Db): Promise<PoolsData> {
  const { call, ...access } = await partner(app, db);
  const base = `/provider/${access.providerRef}`;
  const product = (await call('POST', `${base}/products`, { reference: 'viewing@bench', name: 'Viewing' })).product;
  await call('POST', `${base}/customers`, {
    customerReference: 'cust@bench',
    providerReference: access.providerRef,
    userName: 'Bench Customer',
    email: 'customer@bench.example',
  });
  const singleUuid = await seedW1Resource(call, access.providerRef, 'single@bench');
  const members: string[] = [];
  for (let i = 0; i < POOL_MEMBERS; i++) {
    await seedW1Resource(call, access.providerRef, `member-${i}@bench`);
    members.push(`member-${i}@bench`);
  }
  const pool = await call('POST', `${base}/pools`, {
    reference: 'pool@bench',
    publicName: 'Any flat',
    members: members.map((resourceReference) => ({ resourceReference })),
  });
  return { partner: access, productUuid: product.uuid, singleUuid, poolUuid: pool.pool.uuid };
}

interface Listed {
  start: string;
  end: string;
  kind: string;
  timeslot_uuid: string | null;
  appointment_uuid?: string;
}

export async function poolsRun(serverUrl: string, servicePid: number, data: PoolsData) {
  const send = client(serverUrl, 1);
  const sides = [
    { name: 'one resource', ref: data.singleUuid, pool: false, latencies: new Latencies(), ticks: 0, bytes: 0 },
    {
      name: `pool of ${POOL_MEMBERS}`,
      ref: data.poolUuid,
      pool: true,
      latencies: new Latencies(),
      ticks: 0,
      bytes: 0,
    },
  ];
  const listing = async (ref: string) => {
    const r = await send('GET', `/resources/${ref}/upcoming_bookables?prdRef=${data.productUuid}`, {});
    const body = JSON.parse(r.body) as Record<string, Listed[] | boolean>;
    return Object.values(body).filter(Array.isArray).flat() as Listed[];
  };
  // the free slots of each side, booked from the last (far ahead) backwards, one per round
  const free = new Map<string, Listed[]>();
  for (const side of sides)
    free.set(
      side.ref,
      (await listing(side.ref)).filter((s) => s.kind !== 'models.LotAppointment'),
    );
  let n = 0;
  for (let i = 0; i < POOL_ROUNDS; i++) {
    for (const side of i % 2 ? [...sides].reverse() : sides) {
      const slot = free.get(side.ref)!.pop()!;
      const booked = await send(
        'POST',
        `/resources/${side.ref}/create_appointment_with_consumer`,
        {},
        {
          start: slot.start,
          end: slot.end,
          ...(side.pool ? { pool_uuid: data.poolUuid } : { timeslot_uuid: slot.timeslot_uuid }),
          product_uuid: data.productUuid,
          email: `pool-bench-${n++}@bench.example`,
          firstname: 'Bench',
          lastname: 'Consumer',
        },
      );
      if (booked.status !== 201) throw new Error(`POOLS booking: ${booked.status} ${booked.body}`);
      const before = processTicks(servicePid);
      const r = await send('GET', `/resources/${side.ref}/upcoming_bookables?prdRef=${data.productUuid}`, {
        'accept-encoding': 'br, gzip',
      });
      side.ticks += processTicks(servicePid) - before;
      side.latencies.add(r.ms);
      if (r.status !== 200) side.latencies.failed++;
      side.bytes = r.wire.length;
    }
  }
  return sides.map((s) => ({
    name: s.name,
    bytes: s.bytes,
    cpuMsPerRead: (s.ticks * TICK_MS) / POOL_ROUNDS,
    ...s.latencies.summary(),
  }));
}
