/**
 * W3: partner writes and public bookings on one provider at once. Partner clients cycle through
 * provider, product, contact-profile and resource updates and timeslot creation, each of which
 * touches the listing of every resource it concerns; consumers reserve and book distinct slots.
 */
import { DateTime } from 'luxon';
import { bookOnce, slotCounter } from './booking.js';
import { client, Latencies, type Send } from './http.js';
import type { BookingData } from './seed.js';

type PartnerOp = (send: Send, i: number) => Promise<{ status: number; ms: number }>;

function partnerOps(data: BookingData): Record<string, PartnerOp> {
  const { crmId, key, providerRef } = data.partner;
  const headers = { 'x-service-client-id': key };
  const base = `/crms/${crmId}/provider/${encodeURIComponent(providerRef)}`;
  const resource = (i: number) => encodeURIComponent(data.resourceRefs[i % data.resourceRefs.length]);
  // new timeslots far beyond the booked days, each its own hour
  const farDay = DateTime.fromMillis(data.dayStartsMs[data.dayStartsMs.length - 1]).plus({ days: 30 });
  return {
    'provider PUT': (send, i) =>
      send('PUT', `/crms/${crmId}/provider/${encodeURIComponent(providerRef)}`, headers, {
        name: `Bench Estates ${i}`,
      }),
    'product update': (send, i) =>
      send('POST', `${base}/products/${encodeURIComponent(data.productRef)}`, headers, { description: `version ${i}` }),
    'profile PUT': (send, i) =>
      send('PUT', `/crms/${crmId}/user/${encodeURIComponent(data.contactRef)}/generalContactProfile`, headers, {
        name: `Bench Contact ${i}`,
        contactChannels: [
          { type: 'email', value: 'contact@bench.example' },
          { type: 'phone', value: `+49 30 ${100000 + i}` },
        ],
      }),
    'resource update': (send, i) =>
      send('POST', `${base}/resources/${resource(i)}`, headers, { description: `version ${i}` }),
    'timeslot create': (send, i) => {
      const start = farDay.plus({ hours: i });
      return send('POST', `${base}/timeslots`, headers, {
        timeslots: [
          {
            resourceReference: data.resourceRefs[i % data.resourceRefs.length],
            start: start.toISO(),
            end: start.plus({ minutes: 50 }).toISO(),
            raster: 10,
            defaultCapacity: 1,
            defaultAcceptBookings: true,
            state: 'BOOKABLE',
          },
        ],
      });
    },
  };
}

export interface MixedRun {
  operations: Record<string, ReturnType<Latencies['summary']>>;
  booked: number;
  seconds: number;
}

export async function mixedRun(
  serverUrl: string,
  data: BookingData,
  partners: number,
  consumers: number,
  seconds: number,
): Promise<MixedRun> {
  const ops = partnerOps(data);
  const names = Object.keys(ops);
  const stats: Record<string, Latencies> = Object.fromEntries(
    [...names, 'reserve', 'create'].map((n) => [n, new Latencies()]),
  );
  const send = client(serverUrl, partners + consumers);
  const deadline = Date.now() + seconds * 1000;
  let counter = 0;
  let booked = 0;
  const record = (name: string, r: { status: number; ms: number }, ok: number) => {
    stats[name].add(r.ms);
    if (r.status !== ok && !(ok === 200 && r.status >= 200 && r.status < 300)) stats[name].failed++;
  };

  const partner = async (p: number) => {
    for (let k = 0; Date.now() < deadline; k++) {
      const name = names[(p + k) % names.length];
      const i = counter++;
      record(name, await ops[name](send, i), name === 'timeslot create' ? 201 : 200);
    }
  };
  const take = slotCounter(data);
  const consumer = async () => {
    while (Date.now() < deadline) {
      const { reserved, created } = await bookOnce(send, data, take());
      record('reserve', reserved, 201);
      if (!created) continue;
      record('create', created, 201);
      if (created.status === 201) booked++;
    }
  };
  const started = Date.now();
  await Promise.all([
    ...Array.from({ length: partners }, (_, p) => partner(p)),
    ...Array.from({ length: consumers }, () => consumer()),
  ]);
  return {
    operations: Object.fromEntries(Object.entries(stats).map(([n, l]) => [n, l.summary()])),
    booked,
    seconds: (Date.now() - started) / 1000,
  };
}
