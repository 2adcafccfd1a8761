import { expect } from 'vitest';
import type { TestApp } from './app.js';
import { book, bookBodyFor, consumer, publicCall, type Booking, type ListedBookable } from './bookingFixtures.js';

export interface Booked {
  cancelLink: string;
  appointment_uuid: string;
  start: string;
  end: string;
  /** the token of the cancel link */
  token: string;
  email: string;
}

/** A3 for a listed slot without a hold; 201 expected. */
export async function bookSlot(
  t: TestApp,
  b: Booking,
  slot: ListedBookable,
  who: { email: string } & object = consumer(),
): Promise<Booked> {
  const res = await book(t, b.resource.reference, bookBodyFor(slot, b.product.uuid, undefined, who));
  expect(res.statusCode, res.body).toBe(201);
  const created = res.json().createdAppointment;
  return { ...created, token: tokenOf(created.cancelLink), email: who.email };
}

export const tokenOf = (cancelLink: string) => new URL(cancelLink).pathname.split('/').pop()!;

/** The reschedule body of a listed slot (A3's fields). */
export const moveBodyFor = (slot: ListedBookable) => ({
  start: slot.start,
  end: slot.end,
  timeslot_uuid: slot.appointment_uuid ?? slot.timeslot_uuid,
});

export function reschedule(t: TestApp, token: string, body: object, headers: Record<string, string> = {}) {
  return publicCall(t, 'POST', `/rest/1/bookings/${encodeURIComponent(token)}/reschedule`, body, undefined, headers);
}

/** The participation behind a cancel token, as stored. */
export async function participationOfToken(t: TestApp, token: string) {
  const [row] = await t.db.query<{
    id: string;
    reference: string;
    state: string;
    appointment_id: string;
    start_at: Date;
  }>(
    `SELECT p.id, p.reference, p.state, p.appointment_id, a.start_at FROM participations p JOIN appointments a
       ON a.id = p.appointment_id WHERE p.id = $1`,
    [token.split('.')[0]],
  );
  return row;
}

/** B4 with a booking window on the fixture's resource. */
export async function setWindow(b: Booking, window: object | null) {
  const res = await b.p.call('POST', `${b.base}/resources/${encodeURIComponent(b.resource.reference)}`, {
    bookingWindow: window,
  });
  expect(res.statusCode, res.body).toBe(202);
  return res.json();
}
