import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
import { createResource } from '../helpers/offeringsFixtures.js';
import { createAppointment, outboxOf, setupScheduling, type Scheduling } from '../helpers/schedulingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

// The clock stands at 2026-06-01T08:00Z.
const FUTURE = { start: '2026-06-10T10:00', end: '2026-06-10T11:00' };
const PAST = { start: '2026-05-20T10:00', end: '2026-05-20T11:00' };

const resourcePath = (s: Scheduling) => `${s.base}/resources/${encodeURIComponent(s.resourceRef)}`;

/** D6 with inline participations (which send no mail), one consumer per given state. */
function seedAppointment(s: Scheduling, when: { start: string; end: string }, states: string[]) {
  return createAppointment(s, {
    ...when,
    capacity: 10,
    participations: states.map((state) => ({
      reference: `${uniqueId('part')}@crm`,
      name: 'Carla',
      email: `${uniqueId('c')}@consumer.example`,
      state,
    })),
  });
}

interface Listed {
  uuid: string;
  archived: boolean;
  state: string;
  resourceReference: string | null;
  participations: { uuid: string; email: string; state: string }[];
}

async function listed(s: Scheduling, uuid: string): Promise<Listed> {
  const res = await s.p.call('GET', `${s.base}/appointments`, undefined, { includeArchived: 'true' });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().find((a: Listed) => a.uuid === uuid);
}

const resources = async (s: Scheduling) => (await s.p.call('GET', `${s.base}/resources`)).json();

describe('B6 delete resource', () => {
  it('deletes a resource without appointments with 204 and an empty body', async () => {
    const s = await setupScheduling(t);
    const res = await s.p.call('DELETE', resourcePath(s));
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await resources(s)).toEqual([]);
  });

  it('deletes a resource with only past appointments; they stay as history without the resource', async () => {
    const s = await setupScheduling(t);
    const past = await seedAppointment(s, PAST, ['BOOKED']);
    expect((await s.p.call('DELETE', resourcePath(s))).statusCode).toBe(204);
    expect(await listed(s, past.uuid)).toMatchObject({
      resourceReference: null,
      archived: false,
      state: 'ACTIVE',
      participations: [{ state: 'BOOKED' }],
    });
    expect(await outboxOf(t, s.p.crmId)).toEqual([]);
  });

  it('answers 409 while a future appointment exists and changes nothing', async () => {
    const s = await setupScheduling(t);
    const future = await seedAppointment(s, FUTURE, ['BOOKED']);
    const res = await s.p.call('DELETE', resourcePath(s));
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0]).toMatchObject({
      errorCode: 'CONFLICT',
      message: expect.stringContaining('ignoreFutureAppointments'),
    });
    expect(await resources(s)).toHaveLength(1);
    expect(await listed(s, future.uuid)).toMatchObject({
      resourceReference: s.resourceRef,
      archived: false,
      participations: [{ state: 'BOOKED' }],
    });
    expect(await outboxOf(t, s.p.crmId)).toEqual([]);
    expect(
      (await s.p.call('DELETE', resourcePath(s), undefined, { ignoreFutureAppointments: 'false' })).statusCode,
    ).toBe(409);
  });

  it('with ignoreFutureAppointments archives future appointments, informs participants, deletes', async () => {
    const s = await setupScheduling(t);
    const future = await seedAppointment(s, FUTURE, ['BOOKED', 'REQUESTED', 'CANCELED']);
    const past = await seedAppointment(s, { start: '2026-05-20T10:00', end: '2026-05-20T11:00' }, ['BOOKED']);
    const res = await s.p.call('DELETE', resourcePath(s), undefined, { ignoreFutureAppointments: 'true' });
    expect(res.statusCode).toBe(204);

    expect(await resources(s)).toEqual([]);
    const after = await listed(s, future.uuid);
    expect(after).toMatchObject({ resourceReference: null, archived: true, state: 'ACTIVE' });
    expect(after.participations.map((p) => p.state)).toEqual(['CANCELED', 'CANCELED', 'CANCELED']);
    expect(await listed(s, past.uuid)).toMatchObject({
      resourceReference: null,
      archived: false,
      participations: [{ state: 'BOOKED' }],
    });

    // the BOOKED and the REQUESTED participant are told; the one already CANCELED is not
    const informed = future.participations
      .filter((p: { state: string }) => p.state !== 'CANCELED')
      .map((p: { email: string }) => p.email)
      .sort();
    expect(informed).toHaveLength(2);
    const mails = await outboxOf(t, s.p.crmId);
    expect(mails.map((m) => [m.template, m.recipient]).sort()).toEqual(
      informed.map((email: string) => ['resource-deleted-cancellation', email]),
    );
    for (const m of mails) {
      expect(m.payload.participation.state).toBe('CANCELED');
      expect(m.payload.appointment.reference).toBe(future.reference);
    }
  });

  it('cancels a live reservation hold without mailing it', async () => {
    const s = await setupScheduling(t);
    const future = await seedAppointment(s, FUTURE, []);
    // a consumer mid-booking: A2 leaves a RESERVED participation with a live hold
    const [product] = (await s.p.call('GET', `${s.base}/products`)).json();
    const reserve = await t.app.inject({
      method: 'POST',
      url: `/rest/1/resources/${encodeURIComponent(s.resourceRef)}/reserve_appointment`,
      payload: {
        appointment_uuid: future.uuid,
        product_uuid: product.uuid,
        from: '2026-06-10T08:00:00Z',
        to: '2026-06-10T09:00:00Z',
      },
    });
    expect(reserve.statusCode, reserve.body).toBe(201);
    const id = reserve.json().participation.uuid;
    expect(
      (await s.p.call('DELETE', resourcePath(s), undefined, { ignoreFutureAppointments: 'true' })).statusCode,
    ).toBe(204);
    const [row] = await t.db.query<{ state: string }>('SELECT state FROM participations WHERE id = $1', [id]);
    expect(row.state).toBe('CANCELED');
    expect(await outboxOf(t, s.p.crmId)).toEqual([]);
  });

  it('is not blocked by cancelled future appointments', async () => {
    const s = await setupScheduling(t);
    const future = await seedAppointment(s, FUTURE, []);
    const cancel = await s.p.call('DELETE', `${s.base}/appointments`, { appointmentReference: future.reference });
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect((await s.p.call('DELETE', resourcePath(s))).statusCode).toBe(204);
  });

  it('is irreversible: the reference is gone and can be created anew', async () => {
    const s = await setupScheduling(t);
    expect((await s.p.call('DELETE', resourcePath(s))).statusCode).toBe(204);
    expect((await s.p.call('DELETE', resourcePath(s))).statusCode).toBe(404);
    expect((await s.p.call('POST', resourcePath(s), { publicName: 'X' })).statusCode).toBe(404);
    await createResource(s.p, s.provider.providerRef, { reference: s.resourceRef });
  });

  it('answers 404 for an unknown resource or provider and 400 for a bad flag', async () => {
    const s = await setupScheduling(t);
    expect((await s.p.call('DELETE', `${s.base}/resources/none@crm`)).statusCode).toBe(404);
    expect((await s.p.call('DELETE', `/provider/none@crm/resources/${s.resourceRef}`)).statusCode).toBe(404);
    const bad = await s.p.call('DELETE', resourcePath(s), undefined, { ignoreFutureAppointments: 'perhaps' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].message).toContain('ignoreFutureAppointments');
  });

  it('cannot delete the resource of another partner', async () => {
    const s = await setupScheduling(t);
    const other = await newPartner(t);
    expect((await other.call('DELETE', resourcePath(s))).statusCode).toBe(404);
    expect(await resources(s)).toHaveLength(1);
  });
});
