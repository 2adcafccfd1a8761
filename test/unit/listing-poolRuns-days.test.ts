/**
 * A pool's A1 computed from its previous computation (its members' days and merged days, kept
 * with the cached answer: listingCompute.ts poolListingOf) answers byte for byte what a
 * computation from scratch answers, through bookings, cancellations, new appointments, changed
 * timeslots, the clock moving past slots and a member's booking window, members in two time zones.
 */
import { describe, expect, it } from 'vitest';
import { viewOf } from '../../src/booking/bookableView.js';
import { withChanges, type ListingData, type LoadedAppointment } from '../../src/listing/bookablesLoader.js';
import { compilePattern } from '../../src/booking/datePattern.js';
import { computeListing, type ListingRequest } from '../../src/listing/listingCompute.js';
import type { PublicResource } from '../../src/booking/publicResources.js';

const H = 3_600_000;
const NOW = Date.UTC(2026, 2, 27, 6); // the Friday before Berlin's switch to summer time
const day = (n: number, hourUtc: number) => Date.UTC(2026, 2, 27 + n, hourUtc);
const product = {
  id: 'p1',
  provider_id: 'pv',
  reference: 'p1@x',
  name: 'Consultation',
  description: null,
  min_duration: 60,
  max_duration: null,
  lead_time_minutes: null,
  follow_up_time_minutes: null,
  exclusive: false,
};
const member = (id: string, zone: string, window: unknown = null) =>
  ({
    id,
    public_name: id,
    time_zone: zone,
    booking_window: window,
    contact_channel_type: null,
  }) as unknown as PublicResource;
const members = [
  member('r1', 'Europe/Berlin'),
  member('r2', 'Europe/Berlin', { minNoticeMinutes: 120 }),
  member('r3', 'America/New_York', { maxAdvanceDays: 2 }),
];

function poolData(): ListingData {
  return {
    views: new Map(members.map((r) => [r.id, viewOf(r, [product], 'RESOURCE_PUBLIC', null)])),
    prd: null,
    timeslots: members.flatMap((r, m) =>
      [0, 1, 2, 3, 4].map((n) => ({
        id: `t-${r.id}-${n}`,
        resourceId: r.id,
        startMs: day(n, 6 + m),
        endMs: day(n, 12 + m),
        rasterMin: 60,
        defaultCapacity: 2,
        defaultAcceptBookings: true,
        state: 'BOOKABLE' as const,
      })),
    ),
    appointments: [],
    busy: [],
  };
}

function appointment(id: string, r: number, n: number, hour: number, live: number): LoadedAppointment {
  const resourceId = members[r].id;
  return {
    id,
    resourceId,
    timeslotId: `t-${resourceId}-${n}`,
    productId: 'p1',
    startMs: day(n, 6 + r + hour),
    endMs: day(n, 7 + r + hour),
    capacity: 2,
    acceptBookings: true,
    live,
    state: 'ACTIVE',
    archived: false,
    productName: null,
    productExclusive: id.endsWith('x'),
    nextHoldExpiryMs: null,
  };
}

/** The same data with views of their own: nothing of an earlier computation is reused. */
const afresh = (data: ListingData): ListingData => ({
  ...data,
  views: new Map([...data.views].map(([id, view]) => [id, { ...view }])),
});

describe("a pool's listing from its previous computation", () => {
  for (const prdRef of [undefined, 'p1'])
    it(`answers what a computation from scratch answers${prdRef ? ' (prdRef)' : ''}`, () => {
      let seed = 7;
      const random = (n: number) => {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
        return seed % n;
      };
      let data = poolData();
      if (prdRef) data = { ...data, prd: product };
      let nowMs = NOW;
      const request = (): ListingRequest => ({
        channelKey: 'RESOURCE_PUBLIC',
        groupFormat: compilePattern('yyyy-MM-dd'),
        timeFormat: compilePattern('HH:mm'),
        locale: 'en',
        nowMs,
        pool: { id: 'pool', name: 'Any room' },
        prdRef,
      });
      let previous = computeListing(data, request());
      for (let step = 0; step < 120; step++) {
        const what = random(5);
        if (what === 0) nowMs += random(3) * H + random(4) * 15 * 60_000;
        else if (what === 4 && random(2) === 0) {
          // a timeslot shortened or lengthened: what its member offers changes
          const i = random(data.timeslots.length);
          const t = data.timeslots[i];
          const timeslots = [...data.timeslots];
          timeslots[i] = { ...t, endMs: t.endMs + (random(2) === 0 ? -H : H) };
          data = { ...data, timeslots };
        } else if (what === 1 && data.appointments.length > 0) {
          const gone = data.appointments[random(data.appointments.length)];
          data = withChanges(data, { ids: [gone.id], appointments: [] });
        } else {
          const id = `a${step}${random(4) === 0 ? 'x' : ''}`;
          const a = appointment(id, random(3), random(5), random(6), 1 + random(2));
          data = withChanges(data, { ids: [a.id], appointments: [a] });
        }
        const next = computeListing(data, request(), previous.days);
        const scratch = computeListing(afresh(data), request());
        expect(next.json?.toString()).toBe(scratch.json?.toString());
        expect(next.changesAtMs).toBe(scratch.changesAtMs);
        previous = next;
      }
      expect(previous.json).not.toBeNull();
    });
});
