import { expect } from 'vitest';
import { uniqueId, type TestApp } from './app.js';
import { createTimeslots, setupBooking, timeslot, type Booking } from './bookingFixtures.js';
import { createResource } from './offeringsFixtures.js';

/** A provider with one product, `size` resources offering it (the members) and a pool of them. */
export interface PoolSetup extends Booking {
  members: { uuid: string; reference: string; publicName: string }[];
  pool: { uuid: string; reference: string; publicName: string };
}

export async function setupPool(
  t: TestApp,
  size: number,
  options: { timeZone?: string; assignment?: string; priorities?: number[]; product?: object } = {},
): Promise<PoolSetup> {
  const b = await setupBooking(t, { timeZone: options.timeZone ?? 'Europe/Berlin', product: options.product });
  const members = [b.resource];
  for (let i = 1; i < size; i++)
    members.push(
      await createResource(b.p, b.provider.providerRef, {
        products: [b.product.reference],
        publicName: `Stylist ${i + 1}`,
      }),
    );
  const res = await b.p.call('POST', `${b.base}/pools`, {
    reference: `${uniqueId('pool')}@crm`,
    publicName: 'Any stylist',
    members: members.map((m, i) => ({
      resourceReference: m.reference,
      ...(options.priorities ? { priority: options.priorities[i] } : {}),
    })),
    ...(options.assignment ? { assignment: options.assignment } : {}),
  });
  expect(res.statusCode, res.body).toBe(201);
  return { ...b, members, pool: res.json().pool };
}

/** The same timeslots (D1) on every member. */
export async function memberTimeslots(s: PoolSetup, items: object[]): Promise<void> {
  for (const m of s.members)
    await createTimeslots(
      s,
      items.map((i) => timeslot(s, { resourceReference: m.reference, ...i })),
    );
}
