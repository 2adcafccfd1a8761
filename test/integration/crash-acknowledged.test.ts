/**
 * Issue 37.2: holds commit asynchronously (synchronous_commit off), bookings synchronously. While
 * consumers hold and book, PostgreSQL (postmaster and every backend, one kill -9: its WAL buffers
 * are gone) and the service (kill -9) crash together. After both restart:
 * - every booking that was answered 201 is there, BOOKED;
 * - its mails and its webhook go out (the outbox and the deliveries were committed with it);
 * - every webhook delivered before the crash names a participation that is still there: a hold may
 *   be lost in the crash, but never after anything acted on it (the worker's claim commits
 *   synchronously after the hold, and PostgreSQL flushes its WAL in order).
 * Half of the consumers only hold. The service runs as its own process on a PostgreSQL server of
 * the test's own.
 */
import { DateTime } from 'luxon';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { uniqueId } from '../helpers/app.js';
import { currentBackend } from '../helpers/db.js';
import { skipWithoutPostgresBinaries, startPrivatePostgres, type PrivatePostgres } from '../helpers/privatePostgres.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/process.js';
import { SmtpSink } from '../helpers/smtpSink.js';
import { startReceiver, type Receiver } from '../helpers/webhookReceiver.js';

const CONSUMERS = 8;
/** bookings answered 201 before the crash */
const BOOKINGS_BEFORE_CRASH = 30;
const ZONE = 'Europe/Berlin';

interface Slot {
  timeslotUuid: string;
  from: string;
  to: string;
}

describe.runIf(currentBackend() === 'postgres' && !skipWithoutPostgresBinaries())(
  'acknowledged work after a crash of PostgreSQL and the service (kill -9)',
  () => {
    let server: PrivatePostgres | undefined;
    let sink: SmtpSink | undefined;
    let receiver: Receiver | undefined;
    let service: ServiceProcess | undefined;

    afterAll(async () => {
      service?.child.kill('SIGKILL');
      await sink?.close();
      await receiver?.close();
      await server?.close();
    });

    it('keeps every booking answered 201 with its mails and webhooks; a lost hold was never acted on', async () => {
      server = await startPrivatePostgres();
      sink = await SmtpSink.start();
      receiver = await startReceiver();
      const crmId = uniqueId('crash');
      const key = uniqueId('key');
      const env = {
        DATABASE_URL: server.url,
        SMTP_URL: sink.url,
        API_KEYS: `${crmId}:${key}`,
        MAIL_POLL_MS: '50',
        WEBHOOK_POLL_MS: '50',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        MAX_HOLDS_PER_IP: '100000',
        BOOKING_RATE_LIMIT_PER_MINUTE: '100000',
      };
      service = startServiceProcess(env);
      let base = await service.listening;

      const partner = async (method: 'POST' | 'PUT', path: string, body: unknown) => {
        const res = await fetch(`${base}/crms/${crmId}${path}`, {
          method,
          headers: { 'x-service-client-id': key, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await res.text();
        expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300);
        return JSON.parse(text);
      };
      await partner('POST', '/user', {
        reference: 'owner@crash',
        email: 'owner@crash.example',
        username: 'owner-crash',
        lastName: 'Owner',
      });
      await partner('POST', '/account', {
        accountReference: 'acc@crash',
        ownerReference: 'owner@crash',
        branch: 'real-estate',
      });
      await partner('POST', '/provider', {
        reference: 'prov@crash',
        ownerReference: 'owner@crash',
        accountReference: 'acc@crash',
        name: 'Crash Estates',
        email: 'provider@crash.example',
        timeZone: ZONE,
      });
      const product = (
        await partner('POST', '/provider/prov@crash/products', { reference: 'visit@crash', name: 'Visit' })
      ).product;
      const resource = await partner('POST', '/provider/prov@crash/resources', {
        reference: 'room@crash',
        publicName: 'Room',
        internalName: 'R',
        products: ['visit@crash'],
      });
      const days = Array.from({ length: 20 }, (_, i) =>
        DateTime.now()
          .setZone(ZONE)
          .startOf('day')
          .plus({ days: i + 1 }),
      );
      const wall = (d: DateTime) => d.toFormat("yyyy-MM-dd'T'HH:mm");
      const created = await partner('POST', '/provider/prov@crash/timeslots', {
        timeslots: days.map((d) => ({
          resourceReference: 'room@crash',
          start: wall(d.set({ hour: 8 })),
          end: wall(d.set({ hour: 18 })),
          raster: 30,
          defaultCapacity: 1,
          defaultAcceptBookings: true,
          state: 'BOOKABLE',
        })),
      });
      const slots: Slot[] = days.flatMap((d, i) =>
        Array.from({ length: 20 }, (_, k) => {
          const from = d.set({ hour: 8 }).plus({ minutes: 30 * k });
          return {
            timeslotUuid: created.timeslots[i].uuid as string,
            from: from.toUTC().toISO()!,
            to: from.plus({ minutes: 30 }).toUTC().toISO()!,
          };
        }),
      );
      await partner('POST', '/webhooks', { url: receiver.url });

      // consumers hold and book distinct slots until the crash
      const holds: string[] = [];
      const booked: string[] = [];
      let next = 0;
      let crashed = false;
      const post = async (path: string, body: unknown, n: number) => {
        try {
          const res = await fetch(`${base}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.37.0.${n}` },
            body: JSON.stringify(body),
          });
          return { status: res.status, body: await res.text() };
        } catch {
          return { status: 0, body: '' }; // the service is gone
        }
      };
      const consumerLoop = async (n: number) => {
        while (!crashed) {
          const slot = slots[next++];
          if (!slot) return;
          const body = { timeslot_uuid: slot.timeslotUuid, product_uuid: product.uuid, from: slot.from, to: slot.to };
          const held = await post(`/rest/1/resources/${resource.uuid}/reserve_appointment`, body, n);
          if (held.status !== 201) continue;
          const participation = JSON.parse(held.body).participation;
          holds.push(participation.uuid);
          if (n % 2) continue; // half of them only hold: the holds a crash may lose
          const email = `${uniqueId('consumer')}@crash.example`;
          const done = await post(
            `/resources/${resource.uuid}/create_appointment_with_consumer`,
            {
              start: slot.from,
              end: slot.to,
              timeslot_uuid: slot.timeslotUuid,
              product_uuid: product.uuid,
              placeholder_id: participation.customer_uuid,
              email,
              firstname: 'Erika',
              lastname: 'Muster',
            },
            n,
          );
          if (done.status === 201) booked.push(email);
        }
      };
      const loops = Array.from({ length: CONSUMERS }, (_, n) => consumerLoop(n));
      await expect
        .poll(() => booked.length, { timeout: 120_000, interval: 20 })
        .toBeGreaterThanOrEqual(BOOKINGS_BEFORE_CRASH);
      crashed = true;
      service.child.kill('SIGKILL');
      await server.crash();
      await service.exited;
      await Promise.all(loops);
      const acknowledged = [...booked];
      const deliveredBefore = receiver.received.map(
        (r) => JSON.parse(r.body) as { type: string; data: { participation?: { uuid: string } } },
      );

      await server.start();
      service = startServiceProcess(env);
      base = await service.listening;
      const db = new pg.Client({ connectionString: server.url });
      await db.connect();
      try {
        const { rows } = await db.query<{ email: string; id: string; state: string }>(
          `SELECT c.email, p.id, p.state FROM participations p JOIN customers c ON c.id = p.customer_id
             WHERE c.email = ANY($1::text[])`,
          [acknowledged],
        );
        expect(rows.map((r) => r.email).sort(), 'every booking answered 201 is there after the crash').toEqual(
          [...acknowledged].sort(),
        );
        expect(rows.every((r) => r.state === 'BOOKED')).toBe(true);

        const existing = new Set(
          (await db.query<{ id: string }>('SELECT id FROM participations')).rows.map((r) => r.id),
        );
        const named = deliveredBefore.flatMap((e) => (e.data.participation ? [e.data.participation.uuid] : []));
        expect(
          named.filter((id) => !existing.has(id)),
          'participations named by a webhook delivered before the crash and gone after it',
        ).toEqual([]);

        // their mails and webhooks: waited for, with a generous ceiling (a killed worker's lease is 30 s)
        const bookedIds = rows.map((r) => r.id);
        const mailed = () => acknowledged.every((email) => sink!.mails.some((m) => m.to?.includes(email)));
        const announced = () =>
          bookedIds.every((id) =>
            receiver!.received.some((r) => {
              const e = JSON.parse(r.body);
              return e.type === 'participation.booked' && e.data.participation?.uuid === id;
            }),
          );
        await expect.poll(() => mailed() && announced(), { timeout: 150_000, interval: 250 }).toBe(true);

        const lost = holds.filter((id) => !existing.has(id)).length;
        console.info(
          `crash: ${acknowledged.length} bookings answered 201, all kept, mailed and announced; ` +
            `${holds.length} holds answered 201, ${lost} lost in the crash (asynchronous commit); ` +
            `${named.length} participations named by webhooks before it, all kept`,
        );
      } finally {
        await db.end();
      }
    }, 200_000);
  },
);
