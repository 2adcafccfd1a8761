/**
 * Conformance of group D (scheduling) with the statuses docs/api.md
 * (Operations) gives it, statement by statement, through HTTP only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
import { flatten, upcoming } from '../helpers/bookingFixtures.js';
import { expectBareArray, expectEnvelope, expectError, expectNoContent } from '../helpers/conformance.js';
import {
  createAppointment,
  createCustomer,
  participate,
  setupScheduling,
  type Scheduling,
} from '../helpers/schedulingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const enc = encodeURIComponent;
const TIMESLOT_FIELDS = [
  'reference',
  'uuid',
  'resourceReference',
  'start',
  'end',
  'raster',
  'defaultCapacity',
  'defaultAcceptBookings',
  'state',
  'address',
];
const APPOINTMENT_FIELDS = [
  'reference',
  'uuid',
  'start',
  'end',
  'capacity',
  'capacityLeft',
  'acceptBookings',
  'state',
  'seriesId',
  'participations',
  'description',
  'notes',
  'archived',
  'contactReference',
  'productReference',
  'resourceReference',
  'productName',
  'address',
  'price',
];
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?[+-]\d{2}:\d{2}$/;

const slot = (s: Scheduling, over: object = {}) => ({
  resourceReference: s.resourceRef,
  start: '2026-07-01T09:00',
  end: '2026-07-01T12:00',
  raster: 30,
  defaultCapacity: 2,
  defaultAcceptBookings: true,
  state: 'BOOKABLE',
  ...over,
});

async function timeslot(s: Scheduling, over: object = {}) {
  const res = await s.p.call('POST', `${s.base}/timeslots`, { timeslots: [slot(s, over)] });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().timeslots[0];
}

describe('D1 POST .../timeslots', () => {
  it('201 with timeslots: the created timeslots with the TIMESLOT_FIELDS', async () => {
    const s = await setupScheduling(t);
    const res = await s.p.call('POST', `${s.base}/timeslots`, {
      timeslots: [slot(s, { reference: 'ts1@crm' }), slot(s, { reference: 'ts2@crm', state: 'CREATED' })],
    });
    const { timeslots } = expectEnvelope(res, 201, 'timeslots');
    expect(timeslots).toHaveLength(2);
    for (const field of TIMESLOT_FIELDS) expect(timeslots[0], field).toHaveProperty(field);
    expect(timeslots[0]).toMatchObject({
      reference: 'ts1@crm',
      resourceReference: s.resourceRef,
      start: '2026-07-01T09:00:00+02:00',
      end: '2026-07-01T12:00:00+02:00',
      raster: 30,
      defaultCapacity: 2,
      defaultAcceptBookings: true,
      state: 'BOOKABLE',
      address: null,
    });
    expect(timeslots[1].state).toBe('CREATED');
  });

  it('reference is generated if omitted; start is optional', async () => {
    const s = await setupScheduling(t);
    const { reference, ...noRef } = slot(s, { start: undefined }) as ReturnType<typeof slot> & { reference?: string };
    expect(reference).toBeUndefined();
    const created = await timeslot(s, noRef);
    expect(typeof created.reference).toBe('string');
    expect(created.reference.length).toBeGreaterThan(0);
    expect(created.start).toMatch(ISO_WITH_OFFSET);
  });

  it('timeslots (array), resourceReference, end, raster, defaultCapacity, ..., state are required', async () => {
    const s = await setupScheduling(t);
    expect(expectError(await s.p.call('POST', `${s.base}/timeslots`, {}), 400).message).toContain('body.timeslots');
    for (const field of ['resourceReference', 'end', 'raster', 'defaultCapacity', 'defaultAcceptBookings', 'state']) {
      const res = await s.p.call('POST', `${s.base}/timeslots`, { timeslots: [slot(s, { [field]: undefined })] });
      expect(expectError(res, 400, 'VALIDATION').message).toContain(field);
    }
  });

  it('state is CREATED or BOOKABLE; start accepts the form yyyy-MM-ddTHH:mm', async () => {
    const s = await setupScheduling(t);
    expectError(await s.p.call('POST', `${s.base}/timeslots`, { timeslots: [slot(s, { state: 'HIDDEN' })] }), 400);
    expect((await timeslot(s, { start: '2026-07-02T08:15', end: '2026-07-02T09:15' })).start).toBe(
      '2026-07-02T08:15:00+02:00',
    );
  });

  it('address: an object (request member country, answered as countryCode) or a plain string', async () => {
    const s = await setupScheduling(t);
    const a = await timeslot(s, {
      address: { city: 'Berlin', street: 'Hauptstr.', number: '1', zip: '10115', country: 'AT' },
    });
    expect(a.address).toEqual({ city: 'Berlin', street: 'Hauptstr.', number: '1', zip: '10115', countryCode: 'AT' });
    const b = await timeslot(s, { address: 'Video call, link follows' });
    expect(b.address).toBe('Video call, link follows');
  });

  it('an unknown resource is 404 and nothing is created', async () => {
    const s = await setupScheduling(t);
    const res = await s.p.call('POST', `${s.base}/timeslots`, {
      timeslots: [slot(s, { reference: 'ok@crm' }), slot(s, { resourceReference: 'ghost@crm' })],
    });
    expectError(res, 404, 'NOT_FOUND');
    expect(expectError(await s.p.call('PUT', `${s.base}/timeslots/ok%40crm`, { raster: 15 }), 404).errorCode).toBe(
      'NOT_FOUND',
    );
  });
});

describe('D2 GET .../resource/{resourceRef}/timeslots', () => {
  it('query from and to are both required (400)', async () => {
    const s = await setupScheduling(t);
    const path = `${s.base}/resource/${enc(s.resourceRef)}/timeslots`;
    expect(expectError(await s.p.call('GET', path), 400).message).toMatch(/query\.(from|to)/);
    expect(expectError(await s.p.call('GET', path, undefined, { from: '2026-07-01T00:00' }), 400).message).toContain(
      'query.to',
    );
    expect(expectError(await s.p.call('GET', path, undefined, { to: '2026-07-01T00:00' }), 400).message).toContain(
      'query.from',
    );
  });

  it('200 with timeslots and the appointments in the period', async () => {
    const s = await setupScheduling(t);
    const ts = await timeslot(s);
    const apt = await createAppointment(s, { start: '2026-07-01T14:00', end: '2026-07-01T15:00' });
    await createAppointment(s, { start: '2026-07-05T14:00', end: '2026-07-05T15:00' });
    const res = await s.p.call('GET', `${s.base}/resource/${enc(s.resourceRef)}/timeslots`, undefined, {
      from: '2026-07-01T00:00',
      to: '2026-07-02T00:00',
    });
    const body = expectEnvelope(res, 200, 'timeslots', 'appointments');
    expect(body.timeslots.map((x: { reference: string }) => x.reference)).toEqual([ts.reference]);
    expect(body.appointments.map((x: { reference: string }) => x.reference)).toEqual([apt.reference]);
  });

  it('an unknown resource is 404', async () => {
    const s = await setupScheduling(t);
    expectError(
      await s.p.call('GET', `${s.base}/resource/ghost%40crm/timeslots`, undefined, {
        from: '2026-07-01T00:00',
        to: '2026-07-02T00:00',
      }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('D3 PUT and D4 DELETE .../timeslots/{timeslotRef}', () => {
  it('D3: 200 with timeslot; only given fields change', async () => {
    const s = await setupScheduling(t);
    const ts = await timeslot(s, { reference: 'ts@crm' });
    const res = await s.p.call('PUT', `${s.base}/timeslots/ts%40crm`, { state: 'CREATED', defaultCapacity: 5 });
    expect(expectEnvelope(res, 200, 'timeslot').timeslot).toEqual({ ...ts, state: 'CREATED', defaultCapacity: 5 });
    const times = await s.p.call('PUT', `${s.base}/timeslots/ts%40crm`, {
      start: '2026-07-01T10:00',
      end: '2026-07-01T13:00',
      raster: 60,
      defaultAcceptBookings: false,
    });
    expect(times.json().timeslot).toMatchObject({
      start: '2026-07-01T10:00:00+02:00',
      end: '2026-07-01T13:00:00+02:00',
      raster: 60,
      defaultAcceptBookings: false,
      defaultCapacity: 5,
    });
  });

  it('D3/D4: an unknown timeslot is 404', async () => {
    const s = await setupScheduling(t);
    expectError(await s.p.call('PUT', `${s.base}/timeslots/ghost%40crm`, { raster: 15 }), 404, 'NOT_FOUND');
    expectError(await s.p.call('DELETE', `${s.base}/timeslots/ghost%40crm`), 404, 'NOT_FOUND');
  });

  it('D4: 204, and the timeslot is gone', async () => {
    const s = await setupScheduling(t);
    await timeslot(s, { reference: 'ts@crm' });
    expectNoContent(await s.p.call('DELETE', `${s.base}/timeslots/ts%40crm`));
    const list = await s.p.call('GET', `${s.base}/resource/${enc(s.resourceRef)}/timeslots`, undefined, {
      from: '2026-07-01T00:00',
      to: '2026-07-02T00:00',
    });
    expect(list.json().timeslots).toEqual([]);
  });
});

describe('D5 GET .../appointments and D6 POST .../appointments', () => {
  it('D6 single: 201 with appointments, one item with the APPOINTMENT_FIELDS', async () => {
    const s = await setupScheduling(t);
    const body = {
      reference: 'apt@crm',
      start: '2026-07-01T10:00',
      end: '2026-07-01T11:00',
      capacity: 4,
      acceptBookings: true,
      resourceReference: s.resourceRef,
      productReference: s.productRef,
      productName: 'Special viewing',
      contactReference: s.provider.ownerRef,
      price: { value: 49.5, currency: 'EUR' },
    };
    const { appointments } = expectEnvelope(
      await s.p.call('POST', `${s.base}/appointments`, body),
      201,
      'appointments',
      'busyOverlaps',
    );
    expect(appointments).toHaveLength(1);
    for (const field of APPOINTMENT_FIELDS) expect(appointments[0], field).toHaveProperty(field);
    expect(appointments[0]).toMatchObject({
      reference: 'apt@crm',
      start: '2026-07-01T10:00:00+02:00',
      end: '2026-07-01T11:00:00+02:00',
      capacity: 4,
      capacityLeft: 4,
      acceptBookings: true,
      state: 'ACTIVE',
      seriesId: null,
      participations: [],
      productName: 'Special viewing',
      contactReference: s.provider.ownerRef,
      productReference: s.productRef,
      resourceReference: s.resourceRef,
      price: { value: 49.5, currency: 'EUR' },
      archived: false,
    });
  });

  it('D6: capacity defaults to 0 and acceptBookings to false', async () => {
    const s = await setupScheduling(t);
    const created = await createAppointment(s, { capacity: undefined, acceptBookings: undefined });
    expect(created).toMatchObject({ capacity: 0, acceptBookings: false });
  });

  it('D6: a single appointment needs reference, start, end, resourceReference and productReference (400)', async () => {
    const s = await setupScheduling(t);
    const body = {
      reference: 'a@crm',
      start: '2026-07-01T10:00',
      end: '2026-07-01T11:00',
      resourceReference: s.resourceRef,
      productReference: s.productRef,
    };
    for (const field of Object.keys(body)) {
      expect(
        expectError(
          await s.p.call('POST', `${s.base}/appointments`, { ...body, [field]: undefined }),
          400,
          'VALIDATION',
        ).message,
        field,
      ).toContain(`body.${field}`);
    }
  });

  it('D6: the address defaults to the resource address; an address may be a plain string', async () => {
    const address = { city: 'Berlin', street: 'Hauptstr.', number: '1', zip: '10115' };
    const s = await setupScheduling(t, { resource: { address } });
    expect((await createAppointment(s)).address).toEqual({ ...address, countryCode: 'DE' });
    expect(
      (await createAppointment(s, { start: '2026-07-02T10:00', end: '2026-07-02T11:00', address: 'Video meeting' }))
        .address,
    ).toBe('Video meeting');
  });

  it('D6: price currency is EUR or CHF', async () => {
    const s = await setupScheduling(t);
    expectError(
      await s.p.call('POST', `${s.base}/appointments`, {
        reference: 'a@crm',
        start: '2026-07-01T10:00',
        end: '2026-07-01T11:00',
        resourceReference: s.resourceRef,
        productReference: s.productRef,
        price: { value: 1, currency: 'USD' },
      }),
      400,
    );
  });

  it('D6: inline participations (reference, name, email, state) appear in read results with messages', async () => {
    const s = await setupScheduling(t);
    const created = await createAppointment(s, {
      participations: [
        {
          reference: 'p1@crm',
          name: 'Erika',
          email: 'erika@example.com',
          mobile: '+49 170 1',
          note: 'Hi',
          state: 'BOOKED',
        },
      ],
    });
    expect(created.participations).toMatchObject([
      {
        reference: 'p1@crm',
        name: 'Erika',
        email: 'erika@example.com',
        mobile: '+49 170 1',
        note: 'Hi',
        state: 'BOOKED',
      },
    ]);
    const messages = created.participations[0].messages;
    expect(messages === null || Array.isArray(messages)).toBe(true);
    expect(created.capacityLeft).toBe(created.capacity - 1);
  });

  it('D6 series: series_data (from, to, raster, weekdays) gives appointments sharing one seriesId', async () => {
    const s = await setupScheduling(t);
    const res = await s.p.call('POST', `${s.base}/appointments`, {
      from: '2026-07-06T09:00',
      to: '2026-07-06T11:00',
      capacity: 2,
      acceptBookings: true,
      resourceReference: s.resourceRef,
      productReference: s.productRef,
      series_data: { from: '2026-07-06', to: '2026-07-12', raster: 60, weekdays: ['1', '3'] },
    });
    const { appointments } = expectEnvelope(res, 201, 'appointments', 'busyOverlaps');
    expect(appointments.map((a: { start: string }) => a.start)).toEqual([
      '2026-07-06T09:00:00+02:00',
      '2026-07-06T10:00:00+02:00',
      '2026-07-08T09:00:00+02:00',
      '2026-07-08T10:00:00+02:00',
    ]);
    const ids = new Set(appointments.map((a: { seriesId: string }) => a.seriesId));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toEqual(expect.any(String));
  });

  it('D6 series: weekdays are required when the series spans more than one day (400)', async () => {
    const s = await setupScheduling(t);
    const res = await s.p.call('POST', `${s.base}/appointments`, {
      from: '2026-07-06T09:00',
      to: '2026-07-06T11:00',
      resourceReference: s.resourceRef,
      productReference: s.productRef,
      series_data: { from: '2026-07-06', to: '2026-07-12', raster: 60 },
    });
    expect(expectError(res, 400, 'VALIDATION').message).toContain('weekdays');
  });

  it('D5: a bare array of appointment objects; archived ones only with includeArchived (default false)', async () => {
    const s = await setupScheduling(t);
    const a = await createAppointment(s);
    const list = expectBareArray(await s.p.call('GET', `${s.base}/appointments`));
    expect(list.map((x) => x.reference)).toEqual([a.reference]);
    expect(list[0]).toEqual(a);
    expect(list[0]).toMatchObject({ description: null, notes: null, archived: false, seriesId: null, state: 'ACTIVE' });
  });

  it('D5: returns active and cancelled appointments', async () => {
    const s = await setupScheduling(t);
    const a = await createAppointment(s);
    const b = await createAppointment(s, { start: '2026-07-02T10:00', end: '2026-07-02T11:00' });
    expect((await s.p.call('DELETE', `${s.base}/appointments`, { appointmentReference: b.reference })).statusCode).toBe(
      200,
    );
    const list = expectBareArray(await s.p.call('GET', `${s.base}/appointments`));
    expect(list.map((x) => [x.reference, x.state])).toEqual([
      [a.reference, 'ACTIVE'],
      [b.reference, 'CANCELLED'],
    ]);
  });

  it('D5: productRef and resourceRef filter the list', async () => {
    const s = await setupScheduling(t);
    const other = await s.p.call('POST', `${s.base}/resources`, {
      reference: 'other@crm',
      publicName: 'O',
      internalName: 'O',
      products: [s.productRef],
    });
    expect(other.statusCode).toBe(201);
    const otherProduct = await s.p.call('POST', `${s.base}/products`, { reference: 'p2@crm', name: 'P2' });
    expect(otherProduct.statusCode).toBe(201);
    const a = await createAppointment(s);
    const b = await createAppointment(s, { resourceReference: 'other@crm' });
    const c = await createAppointment(s, {
      start: '2026-07-03T10:00',
      end: '2026-07-03T11:00',
      productReference: 'p2@crm',
    });
    const refs = async (query: Record<string, string>) =>
      expectBareArray(await s.p.call('GET', `${s.base}/appointments`, undefined, query)).map((x) => x.reference);
    expect(await refs({ resourceRef: 'other@crm' })).toEqual([b.reference]);
    expect(await refs({ productRef: 'p2@crm' })).toEqual([c.reference]);
    expect(await refs({ resourceRef: s.resourceRef, productRef: s.productRef })).toEqual([a.reference]);
  });
});

describe('D7 DELETE .../appointments/withoutNotification and D8 DELETE .../appointments', () => {
  it('D7: 200 with count; the appointment is removed; 404 when nothing matches', async () => {
    const s = await setupScheduling(t);
    const a = await createAppointment(s);
    const res = await s.p.call('DELETE', `${s.base}/appointments/withoutNotification`, {
      appointmentReference: a.reference,
    });
    expect(expectEnvelope(res, 200, 'count').count).toBe(1);
    expect(
      expectBareArray(await s.p.call('GET', `${s.base}/appointments`, undefined, { includeArchived: 'true' })),
    ).toEqual([]);
    expectError(
      await s.p.call('DELETE', `${s.base}/appointments/withoutNotification`, { appointmentReference: a.reference }),
      404,
      'NOT_FOUND',
    );
  });

  it('D7: seriesId removes all appointments of the series', async () => {
    const s = await setupScheduling(t);
    const series = await s.p.call('POST', `${s.base}/appointments`, {
      from: '2026-07-06T09:00',
      to: '2026-07-06T12:00',
      resourceReference: s.resourceRef,
      productReference: s.productRef,
      series_data: { from: '2026-07-06', to: '2026-07-06', raster: 60 },
    });
    const { seriesId } = series.json().appointments[0];
    const res = await s.p.call('DELETE', `${s.base}/appointments/withoutNotification`, { seriesId });
    expect(expectEnvelope(res, 200, 'count').count).toBe(3);
  });

  it('D8: the appointment becomes CANCELLED and its participations CANCELED; 200 with count', async () => {
    const s = await setupScheduling(t);
    const a = await createAppointment(s);
    const customer = await createCustomer(s);
    expect(
      (await participate(s, { appointmentReference: a.reference, customerReference: customer.customerReference }))
        .statusCode,
    ).toBe(201);
    const res = await s.p.call(
      'DELETE',
      `${s.base}/appointments`,
      { appointmentReference: a.reference },
      { message: 'Sorry, the flat is gone' },
    );
    expect(expectEnvelope(res, 200, 'count').count).toBe(1);
    const [read] = expectBareArray(await s.p.call('GET', `${s.base}/appointments`));
    expect(read).toMatchObject({ state: 'CANCELLED', participations: [{ state: 'CANCELED' }] });
  });

  it('D8: a cancelled appointment is no longer bookable (D9 into it is refused)', async () => {
    const s = await setupScheduling(t);
    const a = await createAppointment(s);
    await s.p.call('DELETE', `${s.base}/appointments`, { appointmentReference: a.reference });
    const customer = await createCustomer(s);
    const res = await participate(s, {
      appointmentReference: a.reference,
      customerReference: customer.customerReference,
    });
    expectError(res, 409);
  });

  it('D7/D8: appointmentReference or seriesId is required (400); 404 when nothing matches', async () => {
    const s = await setupScheduling(t);
    expectError(await s.p.call('DELETE', `${s.base}/appointments`, {}), 400, 'VALIDATION');
    expectError(await s.p.call('DELETE', `${s.base}/appointments/withoutNotification`, {}), 400, 'VALIDATION');
    expectError(await s.p.call('DELETE', `${s.base}/appointments`, { seriesId: 'nope' }), 404, 'NOT_FOUND');
  });
});

describe('D9 POST .../participations and D10 POST .../participations/{participationRef}', () => {
  async function ground(capacity = 1) {
    const s = await setupScheduling(t);
    const appointment = await createAppointment(s, { capacity });
    const customer = await createCustomer(s);
    return { s, appointment, customer };
  }

  it('D9: 201 with participation for a new reference', async () => {
    const { s, appointment, customer } = await ground();
    const res = await participate(s, {
      reference: 'pa@crm',
      appointmentReference: appointment.reference,
      customerReference: customer.customerReference,
      state: 'REQUESTED',
      message: 'See you',
    });
    expect(expectEnvelope(res, 201, 'participation', 'busyOverlaps').participation).toMatchObject({
      reference: 'pa@crm',
      appointmentReference: appointment.reference,
      customerReference: customer.customerReference,
      state: 'REQUESTED',
      message: 'See you',
    });
  });

  it('D9: reference, appointmentReference, customerReference, state required (400); state one of 5', async () => {
    const { s, appointment, customer } = await ground();
    const body = {
      reference: 'pa@crm',
      appointmentReference: appointment.reference,
      customerReference: customer.customerReference,
      state: 'BOOKED',
    };
    for (const field of Object.keys(body)) {
      expect(
        expectError(await s.p.call('POST', `${s.base}/participations`, { ...body, [field]: undefined }), 400).message,
      ).toContain(`body.${field}`);
    }
    expectError(await s.p.call('POST', `${s.base}/participations`, { ...body, state: 'CANCELLED' }), 400, 'VALIDATION');
  });

  it('D9: onDuplicateRaise=false (default) updates an existing reference (200); true makes it an error', async () => {
    const { s, appointment, customer } = await ground();
    const body = {
      reference: 'pa@crm',
      appointmentReference: appointment.reference,
      customerReference: customer.customerReference,
    };
    expect((await participate(s, { ...body, state: 'REQUESTED' })).statusCode).toBe(201);
    const updated = await participate(s, { ...body, state: 'BOOKED' });
    expect(expectEnvelope(updated, 200, 'participation', 'busyOverlaps').participation.state).toBe('BOOKED');
    const raised = await participate(s, { ...body, state: 'BOOKED' }, { onDuplicateRaise: 'true' });
    expect(raised.statusCode).toBeGreaterThanOrEqual(400);
    expectError(raised, raised.statusCode);
  });

  it('D9: a full appointment refuses a participation unless ignoreCapacity=true', async () => {
    const { s, appointment, customer } = await ground(1);
    const other = await createCustomer(s);
    expect(
      (
        await participate(s, {
          appointmentReference: appointment.reference,
          customerReference: customer.customerReference,
        })
      ).statusCode,
    ).toBe(201);
    expectError(
      await participate(s, { appointmentReference: appointment.reference, customerReference: other.customerReference }),
      409,
    );
    expect(
      (
        await participate(
          s,
          { appointmentReference: appointment.reference, customerReference: other.customerReference },
          { ignoreCapacity: 'true' },
        )
      ).statusCode,
    ).toBe(201);
  });

  it('D9: a customer cannot participate twice in one appointment: 409 AppointmentAlreadyBookedException', async () => {
    const { s, appointment, customer } = await ground(3);
    expect(
      (
        await participate(s, {
          appointmentReference: appointment.reference,
          customerReference: customer.customerReference,
        })
      ).statusCode,
    ).toBe(201);
    expectError(
      await participate(s, {
        appointmentReference: appointment.reference,
        customerReference: customer.customerReference,
      }),
      409,
      'AppointmentAlreadyBookedException',
    );
  });

  it('D9: an unknown appointment or customer is 404', async () => {
    const { s, appointment, customer } = await ground();
    expectError(
      await participate(s, { appointmentReference: 'ghost@crm', customerReference: customer.customerReference }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await participate(s, { appointmentReference: appointment.reference, customerReference: 'ghost@crm' }),
      404,
      'NOT_FOUND',
    );
  });

  it('D10: every transition of the table is allowed and answered 200 with participation', async () => {
    const table: [string, string][] = [
      ['RESERVED', 'BOOKED'],
      ['REQUESTED', 'BOOKED'],
      ['REQUESTED', 'CANCELED'],
      ['BOOKED', 'CANCELED'],
      ['RESERVED', 'CANCELED'],
      ['DELETED', 'CANCELED'],
      ['BOOKED', 'DELETED'],
    ];
    const { s, appointment } = await ground(10);
    for (const [from, to] of table) {
      const customer = await createCustomer(s);
      const reference = `${uniqueId('pa')}@crm`;
      expect(
        (
          await participate(s, {
            reference,
            appointmentReference: appointment.reference,
            customerReference: customer.customerReference,
            state: from,
          })
        ).statusCode,
      ).toBe(201);
      const res = await s.p.call('POST', `${s.base}/participations/${enc(reference)}`, { state: to });
      expect(expectEnvelope(res, 200, 'participation').participation.state, `${from} -> ${to}`).toBe(to);
    }
  });

  it('D10: a transition not in the table is 409 INVALID_TRANSITION; the same state again is 200', async () => {
    const { s, appointment, customer } = await ground();
    await participate(s, {
      reference: 'pa@crm',
      appointmentReference: appointment.reference,
      customerReference: customer.customerReference,
      state: 'BOOKED',
    });
    expectError(
      await s.p.call('POST', `${s.base}/participations/pa%40crm`, { state: 'REQUESTED' }),
      409,
      'INVALID_TRANSITION',
    );
    expect(
      expectEnvelope(
        await s.p.call('POST', `${s.base}/participations/pa%40crm`, { state: 'BOOKED' }),
        200,
        'participation',
      ).participation.state,
    ).toBe('BOOKED');
    await s.p.call('POST', `${s.base}/participations/pa%40crm`, { state: 'CANCELED' });
    expectError(
      await s.p.call('POST', `${s.base}/participations/pa%40crm`, { state: 'BOOKED' }),
      409,
      'INVALID_TRANSITION',
    );
  });

  it('D10: state is required; an unknown participation is 404', async () => {
    const { s } = await ground();
    expectError(await s.p.call('POST', `${s.base}/participations/ghost%40crm`, { message: 'x' }), 400, 'VALIDATION');
    expectError(await s.p.call('POST', `${s.base}/participations/ghost%40crm`, { state: 'BOOKED' }), 404, 'NOT_FOUND');
  });
});

describe('D11-D14 customers', () => {
  it('D11: 200 with api-info and customer (customerReference, email, note, userName, mobile, ...)', async () => {
    const s = await setupScheduling(t);
    const body = {
      customerReference: 'c@crm',
      providerReference: s.provider.providerRef,
      userName: 'Erika Muster',
      email: 'erika@example.com',
      mobile: '+49 170 1234567',
      note: 'VIP',
      language: 'en',
    };
    expect((await s.p.call('POST', `${s.base}/customers`, body)).statusCode).toBe(201);
    const { customer } = expectEnvelope(await s.p.call('GET', `${s.base}/customers/c%40crm`), 200, 'customer');
    expect(customer).toEqual(body);
  });

  it('D11: 204 when no customer has the reference', async () => {
    const s = await setupScheduling(t);
    expectNoContent(await s.p.call('GET', `${s.base}/customers/ghost%40crm`));
  });

  it('D12: 201 for a new customer, 200 when it already exists', async () => {
    const s = await setupScheduling(t);
    const body = { customerReference: 'c@crm', providerReference: s.provider.providerRef, userName: 'Erika' };
    expect(expectEnvelope(await s.p.call('POST', `${s.base}/customers`, body), 201, 'customer').customer).toMatchObject(
      body,
    );
    expect(expectEnvelope(await s.p.call('POST', `${s.base}/customers`, body), 200, 'customer').customer).toMatchObject(
      body,
    );
  });

  it('D12: customerReference, providerReference and userName are required (400)', async () => {
    const s = await setupScheduling(t);
    const body = { customerReference: 'c@crm', providerReference: s.provider.providerRef, userName: 'Erika' };
    for (const field of Object.keys(body)) {
      expect(
        expectError(await s.p.call('POST', `${s.base}/customers`, { ...body, [field]: undefined }), 400).message,
      ).toContain(`body.${field}`);
    }
  });

  it('D13: 200 with customer; the given fields change; an unknown customer is 404', async () => {
    const s = await setupScheduling(t);
    const c = await createCustomer(s, { note: 'old' });
    const res = await s.p.call('PUT', `${s.base}/customers/${enc(c.customerReference)}`, {
      userName: 'New Name',
      mobile: '+41 79 1234567',
      note: 'new',
    });
    expect(expectEnvelope(res, 200, 'customer').customer).toEqual({
      ...c,
      userName: 'New Name',
      mobile: '+41 79 1234567',
      note: 'new',
    });
    expectError(await s.p.call('PUT', `${s.base}/customers/ghost%40crm`, { userName: 'X' }), 404, 'NOT_FOUND');
  });

  it('D13 accepts customerReference in the body', async () => {
    const s = await setupScheduling(t);
    const c = await createCustomer(s);
    const res = await s.p.call('PUT', `${s.base}/customers/${enc(c.customerReference)}`, {
      customerReference: c.customerReference,
      email: 'new@example.com',
    });
    expect(expectEnvelope(res, 200, 'customer').customer).toMatchObject({
      customerReference: c.customerReference,
      email: 'new@example.com',
    });
  });

  it('D14: 204; without ignoreFutureAppointments and with future appointments 409; unknown 404', async () => {
    const s = await setupScheduling(t);
    const a = await createAppointment(s);
    const busy = await createCustomer(s);
    const idle = await createCustomer(s);
    await participate(s, { appointmentReference: a.reference, customerReference: busy.customerReference });
    expectNoContent(await s.p.call('DELETE', `${s.base}/customers/${enc(idle.customerReference)}`));
    expectNoContent(await s.p.call('GET', `${s.base}/customers/${enc(idle.customerReference)}`));
    expectError(await s.p.call('DELETE', `${s.base}/customers/${enc(busy.customerReference)}`), 409);
    expectError(await s.p.call('DELETE', `${s.base}/customers/ghost%40crm`), 404, 'NOT_FOUND');
  });

  it('D14 with ignoreFutureAppointments=true removes the customer from all future appointments', async () => {
    const s = await setupScheduling(t);
    const a = await createAppointment(s);
    const busy = await createCustomer(s);
    await participate(s, { appointmentReference: a.reference, customerReference: busy.customerReference });
    expectNoContent(
      await s.p.call('DELETE', `${s.base}/customers/${enc(busy.customerReference)}`, undefined, {
        ignoreFutureAppointments: 'true',
      }),
    );
    const [read] = expectBareArray(await s.p.call('GET', `${s.base}/appointments`));
    expect(read.capacityLeft).toBe(read.capacity);
    expect((read.participations as { state: string }[]).every((p) => p.state === 'CANCELED')).toBe(true);
  });
});

describe('States seen through the public flow', () => {
  it('timeslot states: CREATED is hidden, BOOKABLE is visible and bookable', async () => {
    const s = await setupScheduling(t);
    await timeslot(s, { reference: 'ts@crm', state: 'CREATED', start: '2026-06-02T09:00', end: '2026-06-02T10:00' });
    expect(flatten(await upcoming(t, s.resourceRef))).toEqual([]);
    await s.p.call('PUT', `${s.base}/timeslots/ts%40crm`, { state: 'BOOKABLE' });
    expect(flatten(await upcoming(t, s.resourceRef))).toHaveLength(2);
  });

  it('defaultAcceptBookings false: the slots are not publicly bookable', async () => {
    const s = await setupScheduling(t);
    await timeslot(s, { defaultAcceptBookings: false, start: '2026-06-02T09:00', end: '2026-06-02T10:00' });
    expect(flatten(await upcoming(t, s.resourceRef))).toEqual([]);
  });

  it('appointment acceptBookings: only a publicly bookable one is offered, a cancelled one no longer', async () => {
    const s = await setupScheduling(t);
    const open = await createAppointment(s, {
      start: '2026-06-03T10:00',
      end: '2026-06-03T11:00',
      acceptBookings: true,
      capacity: 3,
    });
    await createAppointment(s, {
      start: '2026-06-04T10:00',
      end: '2026-06-04T11:00',
      acceptBookings: false,
      capacity: 3,
    });
    expect(flatten(await upcoming(t, s.resourceRef))).toMatchObject([
      { kind: 'models.LotAppointment', appointment_uuid: open.uuid, capacity_left: 3 },
    ]);
    await s.p.call('DELETE', `${s.base}/appointments`, { appointmentReference: open.reference });
    expect(flatten(await upcoming(t, s.resourceRef))).toEqual([]);
  });

  it('resource states: archived true is not bookable; archived false makes it bookable again', async () => {
    const s = await setupScheduling(t);
    await timeslot(s, { start: '2026-06-02T09:00', end: '2026-06-02T10:00' });
    const path = `${s.base}/resources/${enc(s.resourceRef)}`;
    expect((await s.p.call('POST', path, { archived: true })).statusCode).toBe(202);
    expect(flatten(await upcoming(t, s.resourceRef))).toEqual([]);
    expect((await s.p.call('POST', path, { archived: false })).statusCode).toBe(202);
    expect(flatten(await upcoming(t, s.resourceRef))).toHaveLength(2);
  });
});

describe('Times', () => {
  it('a time without offset is wall clock in the provider zone, one with an instant; answers carry it', async () => {
    const s = await setupScheduling(t, { timeZone: 'America/New_York' });
    const wall = await createAppointment(s, { start: '2026-07-01T10:00', end: '2026-07-01T11:00' });
    expect([wall.start, wall.end]).toEqual(['2026-07-01T10:00:00-04:00', '2026-07-01T11:00:00-04:00']);
    const exact = await createAppointment(s, { start: '2026-07-01T18:00:00Z', end: '2026-07-01T19:00:00+00:00' });
    expect([exact.start, exact.end]).toEqual(['2026-07-01T14:00:00-04:00', '2026-07-01T15:00:00-04:00']);
    const winter = await timeslot(s, { start: '2026-12-01T09:00', end: '2026-12-01T10:00' });
    expect(winter.start).toBe('2026-12-01T09:00:00-05:00');
  });
});
