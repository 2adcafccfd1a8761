/**
 * A1's computation alone (`npx tsx bench/compute.ts`): no database, no HTTP. RUSH's listing (28
 * days 08:00-18:00 at raster 30, every slot an appointment with places left) computed from
 * scratch, and after one booking changed one appointment, from the computation before (its days).
 * For reference, the same answer serialized as one string and then encoded, as A1 did before.
 */
import { viewOf } from '../src/booking/bookableView.js';
import { withChanges, type ListingData, type LoadedAppointment } from '../src/listing/bookablesLoader.js';
import { compilePattern } from '../src/booking/datePattern.js';
import { computeListing, type ListingRequest } from '../src/listing/listingCompute.js';
import { computeBookables, type EngineQuery } from '../src/booking/slotEngine.js';
import type { PublicResource } from '../src/booking/publicResources.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 10, 30, 6);
const resource = {
  id: 'c1d6a7a2-5b8e-4a43-9d1e-0a4f3e0c1b11',
  public_name: 'Bench resource',
  time_zone: 'Europe/Berlin',
  booking_window: null,
  contact_channel_type: null,
} as unknown as PublicResource;
const product = {
  id: '9a3f0e52-8c1d-4c7e-b0a4-6f2d9e8b7c55',
  provider_id: 'p',
  reference: 'p@bench',
  name: 'Consultation',
  description: null,
  min_duration: 30,
  max_duration: null,
  lead_time_minutes: null,
  follow_up_time_minutes: null,
  exclusive: false,
};

function rushData(): ListingData {
  const timeslots = [];
  const appointments: LoadedAppointment[] = [];
  for (let d = 1; d <= 28; d++) {
    const start = NOW + d * DAY + HOUR; // 08:00 Berlin
    timeslots.push({
      id: `00000000-0000-4000-8000-${String(d).padStart(12, '0')}`,
      resourceId: resource.id,
      startMs: start,
      endMs: start + 10 * HOUR,
      rasterMin: 30,
      defaultCapacity: 20,
      defaultAcceptBookings: true,
      state: 'BOOKABLE' as const,
    });
    for (let i = 0; i < 20; i++) appointments.push(appointment(d, i, 1 + ((d * i) % 19)));
  }
  return {
    views: new Map([[resource.id, viewOf(resource, [product], 'RESOURCE_PUBLIC', null)]]),
    prd: null,
    timeslots,
    appointments,
    busy: [],
  };
}

function appointment(d: number, i: number, live: number): LoadedAppointment {
  const start = NOW + d * DAY + HOUR + i * 30 * 60_000;
  const id = `10000000-0000-4000-8000-${String(d * 100 + i).padStart(12, '0')}`;
  return {
    id,
    resourceId: resource.id,
    timeslotId: `00000000-0000-4000-8000-${String(d).padStart(12, '0')}`,
    productId: product.id,
    startMs: start,
    endMs: start + 30 * 60_000,
    capacity: 20,
    acceptBookings: true,
    live,
    state: 'ACTIVE',
    archived: false,
    productName: null,
    productExclusive: false,
    nextHoldExpiryMs: null,
  };
}

const request: ListingRequest = {
  channelKey: 'RESOURCE_PUBLIC',
  groupFormat: compilePattern('yyyy-MM-dd'),
  timeFormat: compilePattern('yyyy-MM-dd HH:mm'),
  locale: 'de',
  nowMs: NOW,
};

function msPer(runs: number, fn: (i: number) => void): number {
  for (let i = 0; i < 50; i++) fn(i); // warm up
  const start = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) fn(i);
  return Number(process.hrtime.bigint() - start) / 1e6 / runs;
}

const base = rushData();
let previous = computeListing(base, request);
console.log(`A1 computation, ${previous.json!.length} bytes, ${base.appointments.length} appointments:`);
const scratch = msPer(400, () => computeListing(base, request));
let data = base;
const changed = msPer(400, (i) => {
  // one booking: one appointment gains a participant
  const a = data.appointments[(i * 37) % data.appointments.length];
  data = withChanges(data, { ids: [a.id], appointments: [{ ...a, live: (a.live % 19) + 1 }] });
  previous = computeListing(data, request, previous.days);
});
const answer = JSON.parse(previous.json!.toString());
const oneString = msPer(400, () => Buffer.from(JSON.stringify(answer)));
const oneStringOnly = msPer(400, () => JSON.stringify(answer).length);
console.log(`  from scratch                      ${scratch.toFixed(2)} ms`);
console.log(`  after one change, from the last   ${changed.toFixed(2)} ms`);
console.log(
  `  reference: the whole answer as one JSON.stringify: ${oneStringOnly.toFixed(2)} ms, ` +
    `and encoded to bytes: ${oneString.toFixed(2)} ms`,
);

// The slot engine alone (was a wall-clock assertion in test/unit/slotEngine.test.ts, issue 40): 28 days of
// 08:00-18:00 at raster 30, 150 appointments (capacity 2, 0-2 live), a product with 10 min lead and follow-up.
{
  const timeslots = base.timeslots.map((t) => ({ ...t, defaultCapacity: 1 }));
  const appointments = Array.from({ length: 150 }, (_, i) => ({
    ...appointment(1 + (i % 28), i % 10, i % 3),
    capacity: 2,
  }));
  const query: EngineQuery = {
    nowMs: NOW,
    untilMs: NOW + 60 * DAY,
    product: { id: product.id, minDurationMin: 30, leadMin: 10, followUpMin: 10 },
  };
  const engine = msPer(200, () => computeBookables(timeslots, appointments, query));
  console.log(`  slot engine alone (150 appointments, lead/follow-up 10 min): ${engine.toFixed(2)} ms per call`);
}
