import { describe, expect, it } from 'vitest';
import { viewOf } from '../../src/booking/bookableView.js';
import { withChanges, type ListingData, type LoadedAppointment } from '../../src/listing/bookablesLoader.js';
import { compilePattern } from '../../src/booking/datePattern.js';
import { computeListing, type ListingRequest } from '../../src/listing/listingCompute.js';
import type { PublicResource } from '../../src/booking/publicResources.js';

const NOW = Date.UTC(2026, 2, 27, 12); // Friday before the switch to summer time in Berlin (2026-03-29)
const day = (n: number, hourUtc: number) => Date.UTC(2026, 2, 28 + n, hourUtc);

const resource = {
  id: 'r1',
  public_name: 'Room',
  time_zone: 'Europe/Berlin',
  booking_window: null,
  contact_channel_type: null,
} as unknown as PublicResource;
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

/** Four days, 08:00-12:00 UTC, two places a slot. */
function listingData(): ListingData {
  return {
    views: new Map([['r1', viewOf(resource, [product], 'RESOURCE_PUBLIC', null)]]),
    prd: null,
    timeslots: [0, 1, 2, 3].map((n) => ({
      id: `t${n}`,
      resourceId: 'r1',
      startMs: day(n, 8),
      endMs: day(n, 12),
      rasterMin: 60,
      defaultCapacity: 2,
      defaultAcceptBookings: true,
      state: 'BOOKABLE' as const,
    })),
    appointments: [],
    busy: [],
  };
}

function booked(id: string, n: number, hourUtc: number, live: number): LoadedAppointment {
  return {
    id,
    resourceId: 'r1',
    timeslotId: `t${n}`,
    productId: 'p1',
    startMs: day(n, hourUtc),
    endMs: day(n, hourUtc + 1),
    capacity: 2,
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
  timeFormat: compilePattern('HH:mm'),
  locale: 'en',
  nowMs: NOW,
};
const parse = (json: Buffer | null) => (json === null ? null : JSON.parse(json.toString()));

describe('computeListing from an earlier computation (its days)', () => {
  it('answers exactly what a computation from scratch answers, across the DST change', () => {
    const first = listingData();
    const before = computeListing(first, request);
    const changes = { ids: ['a1', 'a2'], appointments: [booked('a1', 1, 9, 1), booked('a2', 2, 8, 2)] };
    const next = withChanges(first, changes);
    const reused = computeListing(next, { ...request, nowMs: NOW + 1_000 }, before.days);
    const fresh = computeListing(next, { ...request, nowMs: NOW + 1_000 });
    expect(reused.json!.equals(fresh.json!)).toBe(true);
    const listing = parse(reused.json);
    expect(Object.keys(listing)).toEqual(['2026-03-28', '2026-03-29', '2026-03-30', '2026-03-31', 'public_visible']);
    // 2026-03-29 is the day Berlin moves to UTC+2: 09:00 UTC is 11:00 there
    expect(
      listing['2026-03-29'].find((i: { start: string }) => i.start === '2026-03-29T11:00:00+02:00').capacity_left,
    ).toBe(1);
    expect(
      listing['2026-03-30'].find((i: { start: string }) => i.start === '2026-03-30T10:00:00+02:00'),
    ).toBeUndefined(); // full
  });

  it('takes the bytes of an unchanged day from the earlier computation, and serializes the others anew', () => {
    const first = listingData();
    const before = computeListing(first, request);
    // a stand-in for the first day's bytes proves they are taken, not computed again
    const marker = Buffer.from('"2026-03-28":["kept"]');
    before.days.parts.set('2026-03-28', { ...before.days.parts.get('2026-03-28')!, bytes: marker });
    const next = withChanges(first, { ids: ['a1'], appointments: [booked('a1', 1, 9, 1)] });
    const listing = parse(computeListing(next, request, before.days).json);
    expect(listing['2026-03-28']).toEqual(['kept']);
    expect(listing['2026-03-29'].some((i: { appointment_uuid?: string }) => i.appointment_uuid === 'a1')).toBe(true);
  });

  it('serializes every day anew for data of other resource views (a full read)', () => {
    const before = computeListing(listingData(), request);
    before.days.parts.set('2026-03-28', {
      ...before.days.parts.get('2026-03-28')!,
      bytes: Buffer.from('"2026-03-28":["kept"]'),
    });
    const listing = parse(computeListing(listingData(), request, before.days).json);
    expect(listing['2026-03-28']).toHaveLength(4);
  });

  it('keeps its days as parts of its own answer', () => {
    const { json, days } = computeListing(listingData(), request);
    for (const [key, part] of days.parts) {
      expect(part.bytes.buffer).toBe(json!.buffer);
      expect(JSON.parse(`{${part.bytes.toString()}}`)).toEqual({ [key]: parse(json)[key] });
    }
    expect(days.parts.size).toBe(4);
  });
});

describe('withChanges', () => {
  it('keeps a changed appointment in its place, drops one no longer listed and appends a new one', () => {
    const data = {
      ...listingData(),
      appointments: [booked('a1', 0, 8, 1), booked('a2', 1, 8, 1), booked('a3', 2, 8, 1)],
    };
    const next = withChanges(data, {
      ids: ['a2', 'a1', 'a4', 'a5'],
      appointments: [booked('a4', 3, 9, 1), booked('a2', 1, 8, 2), { ...booked('a5', 3, 10, 1), resourceId: 'other' }],
    });
    expect(next.appointments.map((a) => [a.id, a.live])).toEqual([
      ['a2', 2],
      ['a3', 1],
      ['a4', 1],
    ]);
    expect(data.appointments.map((a) => a.id)).toEqual(['a1', 'a2', 'a3']); // the data it came from is left as it was
  });
});

describe('the texts of listed instants', () => {
  it('follow each request’s patterns and locale, whatever was formatted before for the same instants', () => {
    const data = listingData();
    const firstItem = (r: ListingRequest) =>
      Object.values(parse(computeListing(data, r).json) as Record<string, { formattedStart: string }[]>)[0][0];
    expect(firstItem(request).formattedStart).toBe('09:00'); // 08:00 UTC in Berlin (winter time)
    // more patterns for the same instants than an instant keeps texts for
    for (let n = 0; n < 6; n++)
      expect(firstItem({ ...request, timeFormat: compilePattern(`HH:mm '${n}'`) }).formattedStart).toBe(`09:00 ${n}`);
    expect(firstItem({ ...request, timeFormat: compilePattern('EEEE HH:mm') }).formattedStart).toBe('Saturday 09:00');
    expect(firstItem({ ...request, timeFormat: compilePattern('EEEE HH:mm'), locale: 'de' }).formattedStart).toBe(
      'Samstag 09:00',
    );
    expect(firstItem(request).formattedStart).toBe('09:00');
    const groups = Object.keys(parse(computeListing(data, { ...request, groupFormat: compilePattern('EEEE') }).json));
    expect(groups).toEqual(['Saturday', 'Sunday', 'Monday', 'Tuesday', 'public_visible']);
  });
});
