/**
 * Subscribed calendars end to end, on random calendars (test/helpers/calendarGen.ts: series across
 * the DST changes of Berlin, New York and Sydney, Windows zone names, floating and all-day events,
 * EXDATEs, moved, cancelled and freed instances), with the busy instants computed independently
 * (luxon, not ical.js): served over HTTP, subscribed through the partner API, then A1 lists no slot
 * whose span with the product's buffers meets a busy instant, and lists every slot that meets
 * none. The clock stands at 2026-10-01, so A1's 90 days cross all three DST changes.
 * Seeded: PROPERTY_SEED replays a run; CALENDAR_PROPERTY_RUNS sets how many.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TestClock, type TestApp } from '../helpers/app.js';
import { calendarArb, type BusyInterval } from '../helpers/calendarGen.js';
import { createTimeslots, flatten, setupBooking, upcoming } from '../helpers/bookingFixtures.js';
import { propertyRuns, seeded } from '../helpers/property.js';

const NOW = '2026-10-01T00:00:00Z';
const DAY = 86_400_000;
const RASTER_MIN = 30;

let t: TestApp;
let server: Server;
let served = '';
let base = '';
beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/calendar' }).end(served));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await startTestApp({ calendarAllowPrivateNetworks: true }, new TestClock(new Date(NOW)));
});
afterAll(async () => {
  await t.close();
  server.close();
});

const setting = fc.record({
  zone: fc.constantFrom('Europe/Berlin', 'America/New_York', 'Australia/Sydney'),
  lead: fc.constantFrom(0, 15),
  followUp: fc.constantFrom(0, 30),
  // days after the clock's date with opening hours 06:00-22:00 (wall time): some at random, some
  // among the days the calendar is busy on (indexes into them), so that busy times meet timeslots
  days: fc.uniqueArray(fc.integer({ min: 1, max: 85 }), { minLength: 0, maxLength: 2 }),
  busyDays: fc.uniqueArray(fc.nat(), { minLength: 1, maxLength: 3 }),
});

const meets = (busy: BusyInterval[], lo: number, hi: number) => busy.some((b) => b.startMs < hi && b.endMs > lo);

describe('A1 with a subscribed calendar', () => {
  it('lists exactly the slots that meet no busy instant of the calendar', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(calendarArb(), setting, async (calendar, s) => {
        run++;
        const b = await setupBooking(t, {
          timeZone: s.zone,
          product: { leadTimeMinutes: s.lead, followUpTimeMinutes: s.followUp },
        });
        const nowMs = Date.parse(NOW);
        const busy = calendar.expectedBusy(nowMs, nowMs + 400 * DAY, s.zone);
        const startOfDay = DateTime.fromISO(NOW, { zone: s.zone }).startOf('day');
        const dayOf = (ms: number) =>
          Math.floor(DateTime.fromMillis(ms, { zone: s.zone }).startOf('day').diff(startOfDay, 'days').days);
        const busyOn = [...new Set(busy.map((i) => dayOf(i.startMs)))].filter((d) => d >= 1 && d <= 85);
        const picked = busyOn.length ? s.busyDays.map((i) => busyOn[i % busyOn.length]) : [];
        const days = [...new Set([...s.days, ...picked])]
          .sort((x, y) => x - y)
          .map((d) => startOfDay.plus({ days: d }));
        if (days.length === 0) return;
        await createTimeslots(
          b,
          days.map((d) => ({
            start: d.set({ hour: 6 }).toFormat("yyyy-MM-dd'T'HH:mm"),
            end: d.set({ hour: 22 }).toFormat("yyyy-MM-dd'T'HH:mm"),
            raster: RASTER_MIN,
          })),
        );
        served = calendar.ics;
        const sub = await b.p.call('POST', `${b.base}/calendar-subscriptions`, { url: `${base}/run-${run}.ics` });
        expect(sub.statusCode, sub.body).toBe(201);

        const listed = flatten(await upcoming(t, b.resource.reference, { prdRef: b.product.reference })).map((x) =>
          Date.parse(x.start),
        );
        // every raster start of every timeslot, with its buffered span, decided independently
        const expected: number[] = [];
        for (const d of days) {
          const open = d.set({ hour: 6 }).toMillis();
          const close = d.set({ hour: 22 }).toMillis();
          for (let start = open; start + RASTER_MIN * 60_000 <= close; start += RASTER_MIN * 60_000) {
            const end = start + RASTER_MIN * 60_000;
            if (!meets(busy, start - s.lead * 60_000, end + s.followUp * 60_000)) expected.push(start);
          }
        }
        const iso = (list: number[]) => list.map((ms) => new Date(ms).toISOString());
        expect(iso(listed)).toEqual(iso(expected));
      }),
      seeded('calendars: A1 lists exactly the free slots', {
        numRuns: propertyRuns(Number(process.env.CALENDAR_PROPERTY_RUNS ?? 15)),
      }),
    );
  });
});
