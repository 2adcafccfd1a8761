import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, uniqueId, type Partner, type TestApp } from '../helpers/app.js';
import { setupProvider } from '../helpers/fixtures.js';
import { createResource } from '../helpers/offeringsFixtures.js';
import { insertAppointment, insertParticipation, lockResource, type ParticipationRow } from '../../src/scheduling/capacity.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

// The clock stands at 2026-06-01T08:00Z.
const FUTURE = { start: new Date('2026-06-10T10:00:00Z'), end: new Date('2026-06-10T11:00:00Z') };
const PAST = { start: new Date('2026-05-20T10:00:00Z'), end: new Date('2026-05-20T11:00:00Z') };

interface Setup {
  p: Partner;
  providerRef: string;
  providerId: string;
  resource: { uuid: string; reference: string };
  path: string;
}

async function setup(): Promise<Setup> {
  const p = await newPartner(t);
  const { providerRef, providerUuid } = await setupProvider(p);
  const resource = await createResource(p, providerRef);
  return { p, providerRef, providerId: providerUuid, resource, path: `/provider/${providerRef}/resources/${resource.reference}` };
}

/**
 * An appointment with participations straight through the booking kernel: the scheduling
 * endpoints (D6/D9) belong to another module.
 */
async function seedAppointment(s: Setup, when: { start: Date; end: Date }, states: ParticipationRow['state'][], over: { state?: 'CANCELLED' } = {}) {
  return t.db.transaction(async (tx) => {
    await lockResource(tx, s.resource.uuid);
    const a = await insertAppointment(tx, {
      crmId: s.p.crmId, providerId: s.providerId, resourceId: s.resource.uuid, productId: null,
      reference: `${uniqueId('apt')}@crm`, start: when.start, end: when.end, capacity: 10, acceptBookings: true,
    });
    if (over.state) await tx.query('UPDATE appointments SET state = $2 WHERE id = $1', [a.id, over.state]);
    const participants: { id: string; email: string; state: string }[] = [];
    for (const state of states) {
      const email = `${uniqueId('c')}@consumer.example`;
      const [c] = await tx.query<{ id: string }>(
        'INSERT INTO customers (crm_id, provider_id, reference, user_name, email) VALUES ($1, $2, $3, $4, $5) RETURNING id',
        [s.p.crmId, s.providerId, `${uniqueId('cust')}@crm`, 'Carla Consumer', email],
      );
      const holdUntil = state === 'RESERVED' ? new Date('2026-06-01T08:03:00Z') : null;
      const row = await insertParticipation(tx, {
        crmId: s.p.crmId, providerId: s.providerId, appointmentId: a.id, reference: `${uniqueId('part')}@crm`, customerId: c.id, state, holdUntil,
      });
      participants.push({ id: row.id, email, state });
    }
    return { id: a.id, participants };
  });
}

const appointment = async (id: string) =>
  (await t.db.query<{ resource_id: string | null; archived: boolean; state: string }>('SELECT resource_id, archived, state FROM appointments WHERE id = $1', [id]))[0];
const participationStates = async (appointmentId: string) =>
  (await t.db.query<{ id: string; state: string }>('SELECT id, state FROM participations WHERE appointment_id = $1', [appointmentId]));
const outbox = (crmId: string) =>
  t.db.query<{ template: string; recipient: string; payload: { participation: { state: string }; appointment: { resourceName: string } } }>(
    'SELECT template, recipient, payload FROM outbox WHERE crm_id = $1 ORDER BY recipient',
    [crmId],
  );
const resources = async (s: Setup) => (await s.p.call('GET', `/provider/${s.providerRef}/resources`)).json();

describe('B6 delete resource', () => {
  it('deletes a resource without appointments with 204 and an empty body', async () => {
    const s = await setup();
    const res = await s.p.call('DELETE', s.path);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await resources(s)).toEqual([]);
  });

  it('deletes a resource with only past appointments; they stay as history without the resource', async () => {
    const s = await setup();
    const past = await seedAppointment(s, PAST, ['BOOKED']);
    expect((await s.p.call('DELETE', s.path)).statusCode).toBe(204);
    expect(await appointment(past.id)).toEqual({ resource_id: null, archived: false, state: 'ACTIVE' });
    expect(await participationStates(past.id)).toEqual([{ id: past.participants[0].id, state: 'BOOKED' }]);
    expect(await outbox(s.p.crmId)).toEqual([]);
  });

  it('answers 409 while a future appointment exists and changes nothing', async () => {
    const s = await setup();
    const future = await seedAppointment(s, FUTURE, ['BOOKED']);
    const res = await s.p.call('DELETE', s.path);
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0]).toMatchObject({ errorCode: 'CONFLICT', message: expect.stringContaining('ignoreFutureAppointments') });
    expect(await resources(s)).toHaveLength(1);
    expect(await appointment(future.id)).toEqual({ resource_id: s.resource.uuid, archived: false, state: 'ACTIVE' });
    expect(await outbox(s.p.crmId)).toEqual([]);
    const explicit = await s.p.call('DELETE', s.path, undefined, { ignoreFutureAppointments: 'false' });
    expect(explicit.statusCode).toBe(409);
  });

  it('with ignoreFutureAppointments archives future appointments, cancels and informs participants, and deletes', async () => {
    const s = await setup();
    const future = await seedAppointment(s, FUTURE, ['BOOKED', 'REQUESTED', 'RESERVED', 'CANCELED']);
    const past = await seedAppointment(s, PAST, ['BOOKED']);
    const res = await s.p.call('DELETE', s.path, undefined, { ignoreFutureAppointments: 'true' });
    expect(res.statusCode).toBe(204);

    expect(await resources(s)).toEqual([]);
    expect(await appointment(future.id)).toEqual({ resource_id: null, archived: true, state: 'ACTIVE' });
    expect(await appointment(past.id)).toEqual({ resource_id: null, archived: false, state: 'ACTIVE' });
    const states = await participationStates(future.id);
    expect(states.map((r) => r.state)).toEqual(['CANCELED', 'CANCELED', 'CANCELED', 'CANCELED']);
    expect(await participationStates(past.id)).toEqual([{ id: past.participants[0].id, state: 'BOOKED' }]);

    const informed = future.participants.filter((p) => p.state === 'BOOKED' || p.state === 'REQUESTED').map((p) => p.email).sort();
    const mails = await outbox(s.p.crmId);
    expect(mails.map((m) => [m.template, m.recipient])).toEqual(informed.map((email) => ['resource-deleted-cancellation', email]));
    for (const m of mails) {
      expect(m.payload.participation.state).toBe('CANCELED');
      expect(m.payload.appointment.resourceName).toBe('Flat Main Street 1');
    }
  });

  it('is not blocked by cancelled future appointments', async () => {
    const s = await setup();
    await seedAppointment(s, FUTURE, [], { state: 'CANCELLED' });
    expect((await s.p.call('DELETE', s.path)).statusCode).toBe(204);
  });

  it('is irreversible: the reference is gone and can be created anew', async () => {
    const s = await setup();
    expect((await s.p.call('DELETE', s.path)).statusCode).toBe(204);
    expect((await s.p.call('DELETE', s.path)).statusCode).toBe(404);
    expect((await s.p.call('POST', s.path, { publicName: 'X' })).statusCode).toBe(404);
    await createResource(s.p, s.providerRef, { reference: s.resource.reference });
  });

  it('answers 404 for an unknown resource or provider and 400 for a bad flag', async () => {
    const s = await setup();
    expect((await s.p.call('DELETE', `/provider/${s.providerRef}/resources/none@crm`)).statusCode).toBe(404);
    expect((await s.p.call('DELETE', `/provider/none@crm/resources/${s.resource.reference}`)).statusCode).toBe(404);
    const bad = await s.p.call('DELETE', s.path, undefined, { ignoreFutureAppointments: 'perhaps' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].message).toContain('ignoreFutureAppointments');
  });

  it('cannot delete the resource of another partner', async () => {
    const s = await setup();
    const other = await newPartner(t);
    expect((await other.call('DELETE', s.path)).statusCode).toBe(404);
    expect(await resources(s)).toHaveLength(1);
  });
});
