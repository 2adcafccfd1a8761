import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
import { createAppointment, setupScheduling, type Scheduling } from '../helpers/schedulingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const slot = (s: Scheduling, over: object = {}) => ({
  resourceReference: s.resourceRef,
  start: '2026-07-01T09:00',
  end: '2026-07-01T12:00',
  raster: 30,
  defaultCapacity: 1,
  defaultAcceptBookings: true,
  state: 'BOOKABLE',
  ...over,
});

async function create(s: Scheduling, items: object[]) {
  return s.p.call('POST', `${s.base}/timeslots`, { timeslots: items });
}

describe('D1 create timeslots', () => {
  it('creates timeslots with 201 and answers every field with the provider zone offset', async () => {
    const s = await setupScheduling(t);
    const res = await create(s, [
      slot(s, {
        reference: 'ts-1@crm',
        address: { city: 'Berlin', street: 'Hauptstr.', number: '1', zip: '10115', country: 'DE' },
      }),
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body['api-info']).toEqual({ version: '1' });
    expect(body.timeslots).toEqual([
      {
        reference: 'ts-1@crm',
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        resourceReference: s.resourceRef,
        start: '2026-07-01T09:00:00+02:00',
        end: '2026-07-01T12:00:00+02:00',
        raster: 30,
        defaultCapacity: 1,
        defaultAcceptBookings: true,
        state: 'BOOKABLE',
        address: { city: 'Berlin', street: 'Hauptstr.', number: '1', zip: '10115', countryCode: 'DE' },
        ruleReference: null,
      },
    ]);
  });

  it('generates a uuid-based reference when none is given and accepts a text address', async () => {
    const s = await setupScheduling(t);
    const res = await create(s, [slot(s, { address: 'Video call, link follows' }), slot(s, { state: 'CREATED' })]);
    expect(res.statusCode, res.body).toBe(201);
    const [a, b] = res.json().timeslots;
    expect(a.reference).toBe(a.uuid);
    expect(b.reference).toBe(b.uuid);
    expect(a.reference).not.toBe(b.reference);
    expect(a.address).toBe('Video call, link follows');
    expect(b).toMatchObject({ state: 'CREATED', address: null });
  });

  it('takes a time with an offset as the exact instant', async () => {
    const s = await setupScheduling(t);
    const res = await create(s, [slot(s, { start: '2026-07-01T07:00:00Z', end: '2026-07-01T12:00:00+02:00' })]);
    expect(res.json().timeslots[0]).toMatchObject({
      start: '2026-07-01T09:00:00+02:00',
      end: '2026-07-01T12:00:00+02:00',
    });
  });

  it('starts at the next full minute when start is omitted', async () => {
    const s = await setupScheduling(t);
    t.clock.set('2026-06-01T08:00:30Z');
    const res = await create(s, [slot(s, { start: undefined, end: '2026-06-01T18:00' })]);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().timeslots[0].start).toBe('2026-06-01T10:01:00+02:00');
  });

  it('answers in the provider own time zone', async () => {
    const s = await setupScheduling(t, { timeZone: 'America/New_York' });
    const res = await create(s, [slot(s)]);
    expect(res.json().timeslots[0]).toMatchObject({
      start: '2026-07-01T09:00:00-04:00',
      end: '2026-07-01T12:00:00-04:00',
    });
  });

  it('keeps wall-clock times on both sides of the spring-forward change', async () => {
    const s = await setupScheduling(t);
    const res = await create(s, [slot(s, { start: '2026-03-29T01:00', end: '2026-03-29T05:00' })]);
    const ts = res.json().timeslots[0];
    expect(ts).toMatchObject({ start: '2026-03-29T01:00:00+01:00', end: '2026-03-29T05:00:00+02:00' });
    const [row] = await t.db.query<{ hours: number }>(
      'SELECT extract(epoch FROM end_at - start_at) / 3600 AS hours FROM timeslots WHERE id = $1',
      [ts.uuid],
    );
    expect(Number(row.hours)).toBe(3);
  });

  it('keeps wall-clock times on both sides of the fall-back change', async () => {
    const s = await setupScheduling(t);
    const res = await create(s, [slot(s, { start: '2026-10-25T01:00', end: '2026-10-25T05:00' })]);
    const ts = res.json().timeslots[0];
    expect(ts).toMatchObject({ start: '2026-10-25T01:00:00+02:00', end: '2026-10-25T05:00:00+01:00' });
    const [row] = await t.db.query<{ hours: number }>(
      'SELECT extract(epoch FROM end_at - start_at) / 3600 AS hours FROM timeslots WHERE id = $1',
      [ts.uuid],
    );
    expect(Number(row.hours)).toBe(5);
  });

  it.each([
    ['end before start', { end: '2026-07-01T08:00' }, 'body.timeslots[0].end must be after body.timeslots[0].start'],
    ['end equal to start', { end: '2026-07-01T09:00' }, 'body.timeslots[0].end must be after'],
    ['a raster of 0', { raster: 0 }, 'body.timeslots.0.raster'],
    ['a fractional raster', { raster: 7.5 }, 'body.timeslots.0.raster'],
    ['a negative capacity', { defaultCapacity: -1 }, 'body.timeslots.0.defaultCapacity'],
    ['an unknown state', { state: 'OPEN' }, 'body.timeslots.0.state must be one of CREATED, BOOKABLE'],
    ['a missing end', { end: undefined }, 'body.timeslots.0.end is required'],
    [
      'an invalid start',
      { start: '01.07.2026 09:00' },
      'body.timeslots.0.start must be an ISO 8601 date-time such as 2026-06-01T10:00',
    ],
    ['an address without city', { address: { street: 'a', number: '1', zip: '1' } }, 'body.timeslots.0.address'],
  ])('rejects %s with 400 naming the field', async (_what, over, message) => {
    const s = await setupScheduling(t);
    const res = await create(s, [slot(s, over)]);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].errorCode).toBe('VALIDATION');
    expect(res.json().errors[0].message).toContain(message);
  });

  it('rejects an empty list and a missing list with 400', async () => {
    const s = await setupScheduling(t);
    expect((await create(s, [])).statusCode).toBe(400);
    expect((await s.p.call('POST', `${s.base}/timeslots`, {})).json().errors[0].message).toContain(
      'body.timeslots is required',
    );
  });

  it('validates the body before looking up the provider', async () => {
    const s = await setupScheduling(t);
    const res = await s.p.call('POST', '/provider/nobody@crm/timeslots', { timeslots: [slot(s, { start: 'x' })] });
    expect(res.statusCode).toBe(400);
  });

  it('answers 404 for an unknown provider and for an unknown resource, creating nothing', async () => {
    const s = await setupScheduling(t);
    expect((await s.p.call('POST', '/provider/nobody@crm/timeslots', { timeslots: [slot(s)] })).statusCode).toBe(404);
    const res = await create(s, [
      slot(s, { reference: 'kept-out@crm' }),
      slot(s, { resourceReference: 'missing@crm' }),
    ]);
    expect(res.statusCode).toBe(404);
    expect(res.json().errors[0].message).toContain('missing@crm');
    const rows = await t.db.query('SELECT 1 FROM timeslots WHERE reference = $1 AND crm_id = $2', [
      'kept-out@crm',
      s.p.crmId,
    ]);
    expect(rows).toHaveLength(0);
  });

  it('answers 409 for a reference that exists and 400 for one given twice', async () => {
    const s = await setupScheduling(t);
    await create(s, [slot(s, { reference: 'dup@crm' })]);
    const again = await create(s, [slot(s, { reference: 'dup@crm' })]);
    expect(again.statusCode).toBe(409);
    expect(again.json().errors[0].message).toContain('dup@crm');
    expect((await create(s, [slot(s, { reference: 'x@crm' }), slot(s, { reference: 'x@crm' })])).statusCode).toBe(400);
  });

  it('does not see the resources of another partner', async () => {
    const s = await setupScheduling(t);
    const other = await setupScheduling(t);
    const res = await other.p.call('POST', `${s.base}/timeslots`, { timeslots: [slot(s)] });
    expect(res.statusCode).toBe(404);
  });
});

describe('D2 list timeslots of a resource', () => {
  it('lists timeslots and appointments that overlap [from, to), in time order', async () => {
    const s = await setupScheduling(t);
    await create(s, [
      slot(s, { reference: 'late@crm', start: '2026-07-02T09:00', end: '2026-07-02T12:00' }),
      slot(s, { reference: 'early@crm', start: '2026-07-01T09:00', end: '2026-07-01T12:00' }),
      slot(s, { reference: 'outside@crm', start: '2026-07-03T09:00', end: '2026-07-03T12:00' }),
    ]);
    const inside = await createAppointment(s, { start: '2026-07-02T13:00', end: '2026-07-02T14:00' });
    await createAppointment(s, { start: '2026-07-03T13:00', end: '2026-07-03T14:00' });
    const res = await s.p.call('GET', `${s.base}/resource/${encodeURIComponent(s.resourceRef)}/timeslots`, undefined, {
      from: '2026-07-01T00:00',
      to: '2026-07-03T00:00',
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.timeslots.map((x: { reference: string }) => x.reference)).toEqual(['early@crm', 'late@crm']);
    expect(body.appointments.map((x: { reference: string }) => x.reference)).toEqual([inside.reference]);
    expect(body.appointments[0]).toMatchObject({
      start: '2026-07-02T13:00:00+02:00',
      capacity: 3,
      capacityLeft: 3,
      participations: [],
    });
  });

  it('treats to as exclusive', async () => {
    const s = await setupScheduling(t);
    await create(s, [slot(s, { reference: 'a@crm', start: '2026-07-01T09:00', end: '2026-07-01T10:00' })]);
    const res = await s.p.call('GET', `${s.base}/resource/${encodeURIComponent(s.resourceRef)}/timeslots`, undefined, {
      from: '2026-07-01T07:00',
      to: '2026-07-01T09:00',
    });
    expect(res.json().timeslots).toEqual([]);
  });

  it.each([
    [{ from: '2026-07-01T00:00' }, 'query.to is required'],
    [{ from: 'soon', to: '2026-07-02T00:00' }, 'query.from must be an ISO 8601'],
    [{ from: '2026-07-02T00:00', to: '2026-07-01T00:00' }, 'query.to must be after query.from'],
  ])('rejects the query %j with 400', async (query, message) => {
    const s = await setupScheduling(t);
    const res = await s.p.call(
      'GET',
      `${s.base}/resource/${encodeURIComponent(s.resourceRef)}/timeslots`,
      undefined,
      query,
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toContain(message);
  });

  it('answers 404 for an unknown resource', async () => {
    const s = await setupScheduling(t);
    const res = await s.p.call('GET', `${s.base}/resource/nothing@crm/timeslots`, undefined, {
      from: '2026-07-01',
      to: '2026-07-02',
    });
    expect(res.statusCode).toBe(404);
  });
});

describe('D3 update and D4 delete a timeslot', () => {
  async function oneSlot(s: Scheduling) {
    const reference = `${uniqueId('ts')}@crm`;
    await create(s, [slot(s, { reference })]);
    return reference;
  }

  it('changes only the given fields and answers 200 with the timeslot', async () => {
    const s = await setupScheduling(t);
    const reference = await oneSlot(s);
    const res = await s.p.call('PUT', `${s.base}/timeslots/${encodeURIComponent(reference)}`, {
      end: '2026-07-01T13:00',
      raster: 60,
      state: 'CREATED',
      address: 'Room 4',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().timeslot).toMatchObject({
      reference,
      start: '2026-07-01T09:00:00+02:00',
      end: '2026-07-01T13:00:00+02:00',
      raster: 60,
      defaultCapacity: 1,
      defaultAcceptBookings: true,
      state: 'CREATED',
      address: 'Room 4',
    });
    const cleared = await s.p.call('PUT', `${s.base}/timeslots/${encodeURIComponent(reference)}`, {
      address: null,
      defaultCapacity: 5,
    });
    expect(cleared.json().timeslot).toMatchObject({ address: null, defaultCapacity: 5, raster: 60 });
  });

  it('moves a timeslot to another resource of the provider', async () => {
    const s = await setupScheduling(t);
    const reference = await oneSlot(s);
    const other = await (await import('../helpers/offeringsFixtures.js')).createResource(s.p, s.provider.providerRef);
    const res = await s.p.call('PUT', `${s.base}/timeslots/${encodeURIComponent(reference)}`, {
      resourceReference: other.reference,
    });
    expect(res.json().timeslot.resourceReference).toBe(other.reference);
  });

  it('rejects a change that puts the end before the start with 400', async () => {
    const s = await setupScheduling(t);
    const reference = await oneSlot(s);
    const res = await s.p.call('PUT', `${s.base}/timeslots/${encodeURIComponent(reference)}`, {
      start: '2026-07-01T12:30',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toBe('body.end must be after body.start');
  });

  it('rejects a raster of 0 and an unknown state with 400', async () => {
    const s = await setupScheduling(t);
    const reference = await oneSlot(s);
    expect(
      (await s.p.call('PUT', `${s.base}/timeslots/${encodeURIComponent(reference)}`, { raster: 0 })).statusCode,
    ).toBe(400);
    expect(
      (await s.p.call('PUT', `${s.base}/timeslots/${encodeURIComponent(reference)}`, { state: 'GONE' })).statusCode,
    ).toBe(400);
  });

  it('answers 404 for an unknown timeslot or resource', async () => {
    const s = await setupScheduling(t);
    const reference = await oneSlot(s);
    expect((await s.p.call('PUT', `${s.base}/timeslots/none@crm`, { raster: 10 })).statusCode).toBe(404);
    expect(
      (await s.p.call('PUT', `${s.base}/timeslots/${encodeURIComponent(reference)}`, { resourceReference: 'none@crm' }))
        .statusCode,
    ).toBe(404);
  });

  it('deletes with 204, then answers 404', async () => {
    const s = await setupScheduling(t);
    const reference = await oneSlot(s);
    const res = await s.p.call('DELETE', `${s.base}/timeslots/${encodeURIComponent(reference)}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await s.p.call('DELETE', `${s.base}/timeslots/${encodeURIComponent(reference)}`)).statusCode).toBe(404);
  });
});

describe('OpenAPI document', () => {
  it('lists every scheduling route with its tag and summary', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const p = '/crms/{crmId}/provider/{providerRef}';
    const expected: [string, string, string][] = [
      ['post', `${p}/timeslots`, 'D1'],
      ['get', `${p}/resource/{resourceRef}/timeslots`, 'D2'],
      ['put', `${p}/timeslots/{timeslotRef}`, 'D3'],
      ['delete', `${p}/timeslots/{timeslotRef}`, 'D4'],
      ['get', `${p}/appointments`, 'D5'],
      ['post', `${p}/appointments`, 'D6'],
      ['delete', `${p}/appointments/withoutNotification`, 'D7'],
      ['delete', `${p}/appointments`, 'D8'],
      ['post', `${p}/participations`, 'D9'],
      ['post', `${p}/participations/{participationRef}`, 'D10'],
      ['get', `${p}/customers/{customerRef}`, 'D11'],
      ['post', `${p}/customers`, 'D12'],
      ['put', `${p}/customers/{customerRef}`, 'D13'],
      ['delete', `${p}/customers/{customerRef}`, 'D14'],
    ];
    for (const [method, path, id] of expected) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.tags).toEqual(['D. Scheduling']);
      expect(op.summary.startsWith(`${id} `)).toBe(true);
    }
  });
});
