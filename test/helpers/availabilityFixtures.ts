import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { uniqueId } from './app.js';
import type { TestApp } from './app.js';
import { flatten, upcoming, type Booking } from './bookingFixtures.js';

/** A rule body for the booking's resource: Mon-Fri 09:00-12:00 and 13:00-17:00 at raster 30, one place. */
export const ruleBody = (b: Booking, over: object = {}) => ({
  reference: `${uniqueId('hours')}@crm`,
  resourceReference: b.resource.reference,
  weekdays: ['1', '2', '3', '4', '5'],
  windows: [
    { from: '09:00', to: '12:00' },
    { from: '13:00', to: '17:00' },
  ],
  raster: 30,
  defaultCapacity: 1,
  ...over,
});

export interface RuleAnswer {
  reference: string;
  uuid: string;
  resourceReference: string;
  weekdays: string[];
  windows: { from: string; to: string }[];
  validFrom: string;
  validUntil: string | null;
  publishedUntil: string;
  timeslotsCreated: number;
}

export const rulesPath = (b: Booking, ref?: string) =>
  `${b.base}/availability-rules${ref === undefined ? '' : `/${encodeURIComponent(ref)}`}`;

/** Creates a rule (201 expected) and returns it. */
export async function createRule(b: Booking, over: object = {}): Promise<RuleAnswer> {
  const res = await b.p.call('POST', rulesPath(b), ruleBody(b, over));
  expect(res.statusCode, res.body).toBe(201);
  return res.json().rule;
}

/** Changes a rule (200 expected) and returns the answer's rule and keptTimeslots. */
export async function changeRule(
  b: Booking,
  ref: string,
  changes: object,
): Promise<{ rule: RuleAnswer; keptTimeslots: string[] }> {
  const res = await b.p.call('POST', rulesPath(b, ref), changes);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export interface ListedTimeslot {
  reference: string;
  uuid: string;
  start: string;
  end: string;
  ruleReference: string | null;
}

/** D2: the resource's timeslots in [from, to) (wall-clock times of the provider's zone). */
export async function timeslotsOf(b: Booking, from: string, to: string): Promise<ListedTimeslot[]> {
  const res: LightMyRequestResponse = await b.p.call(
    'GET',
    `${b.base}/resource/${encodeURIComponent(b.resource.reference)}/timeslots`,
    undefined,
    { from, to },
  );
  expect(res.statusCode, res.body).toBe(200);
  return res.json().timeslots;
}

/** "start end" of each timeslot, the wall-clock part only (yyyy-MM-ddTHH:mm). */
export const spans = (list: ListedTimeslot[]) => list.map((t) => `${t.start.slice(0, 16)} ${t.end.slice(11, 16)}`);

/** A1's listed slot starts by day, e.g. {'2026-06-01': ['10:00', ...]}, for the first `days` days listed. */
export async function listedByDay(t: TestApp, b: Booking, days = 2): Promise<Record<string, string[]>> {
  const byDay: Record<string, string[]> = {};
  for (const s of flatten(await upcoming(t, b.resource.reference, { prdRef: b.product.reference }))) {
    const day = s.start.slice(0, 10);
    byDay[day] = [...(byDay[day] ?? []), s.start.slice(11, 16)];
  }
  return Object.fromEntries(Object.entries(byDay).slice(0, days));
}
