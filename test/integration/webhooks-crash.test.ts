/**
 * At least once across a crash (docs/webhooks.md): the service (dist/main.js, as `npm start`) is killed
 * with SIGKILL while bookings arrive and deliveries are in flight; after a restart on the same
 * database every booking that was committed reaches the receiver.
 */
import { DateTime } from 'luxon';
import { afterAll, describe, expect, it } from 'vitest';
import { serviceStorageEnv, startServiceProcess } from '../helpers/process.js';
import { startReceiver } from '../helpers/webhookReceiver.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const KEY = 'crash-key';
const CRM = 'crashcrm';

function client(base: string) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-service-client-id': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: await res.json().catch(() => null) };
  };
}

describe('webhooks across a crash', () => {
  it('loses no event when the service is killed with SIGKILL mid-load', async () => {
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    // Until the crash the receiver refuses everything: every event is still to be delivered (some
    // with an attempt in flight) when the process dies.
    let crashed = false;
    receiver.respond = () => (crashed ? 200 : 503);
    const env = {
      ...(await serviceStorageEnv(cleanups)),
      API_KEYS: `${CRM}:${KEY}`,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_BASE_MS: '20',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_POLL_MS: '50',
      BOOKING_RATE_LIMIT_PER_MINUTE: '100000',
      MAX_HOLDS_PER_IP: '100000',
    };
    const first = startServiceProcess(env);
    cleanups.push(() => void first.child.kill('SIGKILL'));
    const call = client(await first.listening);

    const day = DateTime.now().setZone('Europe/Berlin').plus({ days: 2 }).toISODate();
    expect(
      (
        await call('POST', `/crms/${CRM}/user`, {
          reference: 'owner@crm',
          email: 'owner@example.com',
          username: 'owner',
          lastName: 'O',
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await call('POST', `/crms/${CRM}/account`, {
          accountReference: 'acc@crm',
          ownerReference: 'owner@crm',
          branch: 'real-estate',
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await call('POST', `/crms/${CRM}/provider`, {
          reference: 'prov@crm',
          ownerReference: 'owner@crm',
          accountReference: 'acc@crm',
          name: 'Acme',
        })
      ).status,
    ).toBe(201);
    const P = `/crms/${CRM}/provider/prov@crm`;
    const product = (await call('POST', `${P}/products`, { reference: 'prod@crm', name: 'Viewing' })).json.product;
    const resource = (
      await call('POST', `${P}/resources`, {
        reference: 'res@crm',
        publicName: 'Flat',
        internalName: 'F',
        products: ['prod@crm'],
      })
    ).json;
    const slots = await call('POST', `${P}/timeslots`, {
      timeslots: [
        {
          resourceReference: 'res@crm',
          start: `${day}T08:00`,
          end: `${day}T18:00`,
          raster: 30,
          defaultCapacity: 1000,
          defaultAcceptBookings: true,
          state: 'BOOKABLE',
        },
      ],
    });
    expect(slots.status).toBe(201);
    const timeslot = slots.json.timeslots[0].uuid;
    expect(
      (await call('POST', `/crms/${CRM}/webhooks`, { url: `${receiver.url}/crash`, events: ['participation.booked'] }))
        .status,
    ).toBe(201);

    // Consumers book the 20 slots over and over until the process dies under them.
    const startOf = (i: number) =>
      DateTime.fromISO(`${day}T08:00`, { zone: 'Europe/Berlin' }).plus({ minutes: 30 * (i % 20) });
    let booked = 0;
    let n = 0;
    const consumerLoop = async () => {
      for (;;) {
        const i = n++;
        const s = startOf(i);
        const res = await call('POST', `/resources/${resource.uuid}/create_appointment_with_consumer`, {
          start: s.toISO(),
          end: s.plus({ minutes: 30 }).toISO(),
          timeslot_uuid: timeslot,
          product_uuid: product.uuid,
          email: `c${i}@consumer.example`,
          firstname: 'C',
          lastname: String(i),
        }).catch(() => null);
        if (!res) return; // the service is gone
        if (res.status === 201) booked++;
      }
    };
    const loops = Array.from({ length: 6 }, consumerLoop);
    await receiver.waitFor((r) => r.length >= 10, 30_000); // deliveries are flowing
    while (booked < 60) await new Promise((r) => setTimeout(r, 10));
    first.child.kill('SIGKILL');
    await first.exited;
    crashed = true;
    await Promise.all(loops);

    const restartedAt = Date.now();
    const second = startServiceProcess(env);
    cleanups.push(() => void second.child.kill('SIGKILL'));
    const again = client(await second.listening);
    const appointments = (await again('GET', `${P}/appointments`)).json as {
      participations: { uuid: string; state: string }[];
    }[];
    const committed = new Set(
      appointments.flatMap((a) => a.participations.filter((p) => p.state === 'BOOKED').map((p) => p.uuid)),
    );
    // every 201 was committed (some in flight may have committed too)
    expect(committed.size).toBeGreaterThanOrEqual(booked);

    const accepted = () => receiver.received.filter((r) => r.at > restartedAt);
    const reported = () => new Set(accepted().map((r) => JSON.parse(r.body).data.participation.uuid as string));
    await receiver.waitFor(() => [...committed].every((uuid) => reported().has(uuid)), 30_000);
    expect([...reported()].filter((uuid) => !committed.has(uuid))).toEqual([]);
    // duplicates are possible (at least once) but each event id carries one participation
    const byId = new Map<string, string>();
    for (const e of receiver.events('/crash')) {
      if (e.body.data.participation === undefined) continue;
      expect(byId.get(e.id) ?? e.body.data.participation.uuid).toBe(e.body.data.participation.uuid);
      byId.set(e.id, e.body.data.participation.uuid);
    }
    expect(byId.size).toBe(committed.size);

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 120_000);
});
