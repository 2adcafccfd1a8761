import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createAppointment, setupScheduling, type Scheduling } from '../helpers/schedulingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const series = (s: Scheduling, over: object = {}, data: object = {}) => ({
  from: '2026-06-01T09:00',
  to: '2026-06-01T11:00',
  capacity: 2,
  acceptBookings: true,
  resourceReference: s.resourceRef,
  productReference: s.productRef,
  series_data: { from: '2026-06-01', to: '2026-06-07', raster: 60, weekdays: ['1', '3'], ...data },
  ...over,
});

const post = (s: Scheduling, body: object) => s.p.call('POST', `${s.base}/appointments`, body);

interface Apt {
  reference: string;
  start: string;
  end: string;
  seriesId: string;
  capacity: number;
  acceptBookings: boolean;
}

describe('D6 series', () => {
  it('cuts the daily window into raster appointments on the listed weekdays with one seriesId', async () => {
    const s = await setupScheduling(t);
    const res = await post(s, series(s));
    expect(res.statusCode, res.body).toBe(201);
    const apts: Apt[] = res.json().appointments;
    expect(apts.map((a) => [a.start, a.end])).toEqual([
      ['2026-06-01T09:00:00+02:00', '2026-06-01T10:00:00+02:00'],
      ['2026-06-01T10:00:00+02:00', '2026-06-01T11:00:00+02:00'],
      ['2026-06-03T09:00:00+02:00', '2026-06-03T10:00:00+02:00'],
      ['2026-06-03T10:00:00+02:00', '2026-06-03T11:00:00+02:00'],
    ]);
    const seriesId = apts[0].seriesId;
    expect(seriesId).toMatch(/^[0-9a-f-]{36}$/);
    expect(apts.map((a) => a.seriesId)).toEqual([seriesId, seriesId, seriesId, seriesId]);
    expect(apts.map((a) => a.reference)).toEqual([1, 2, 3, 4].map((n) => `${seriesId}-${n}`));
    expect(apts.every((a) => a.capacity === 2 && a.acceptBookings)).toBe(true);
    const listed = await s.p.call('GET', `${s.base}/appointments`);
    expect(listed.json()).toHaveLength(4);
  });

  it('accepts numeric weekdays, date-times as series dates and ignores a top-level reference', async () => {
    const s = await setupScheduling(t);
    const res = await post(
      s,
      series(s, { reference: 'ignored@crm' }, { from: '2026-06-07T18:00', to: '2026-06-08T06:00', weekdays: [7, 1] }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const apts: Apt[] = res.json().appointments;
    expect(apts.map((a) => a.start)).toEqual([
      '2026-06-07T09:00:00+02:00',
      '2026-06-07T10:00:00+02:00',
      '2026-06-08T09:00:00+02:00',
      '2026-06-08T10:00:00+02:00',
    ]);
    expect(apts.some((a) => a.reference === 'ignored@crm')).toBe(false);
  });

  it('needs no weekdays for a one-day series', async () => {
    const s = await setupScheduling(t);
    const res = await post(s, series(s, {}, { from: '2026-06-02', to: '2026-06-02', weekdays: undefined, raster: 30 }));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().appointments).toHaveLength(4);
  });

  it('keeps the wall-clock window every day across the spring-forward change', async () => {
    const s = await setupScheduling(t);
    const res = await post(
      s,
      series(
        s,
        {},
        { from: '2026-03-28', to: '2026-03-30', weekdays: ['1', '2', '3', '4', '5', '6', '7'], raster: 120 },
      ),
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().appointments.map((a: Apt) => [a.start, a.end])).toEqual([
      ['2026-03-28T09:00:00+01:00', '2026-03-28T11:00:00+01:00'],
      ['2026-03-29T09:00:00+02:00', '2026-03-29T11:00:00+02:00'],
      ['2026-03-30T09:00:00+02:00', '2026-03-30T11:00:00+02:00'],
    ]);
    const rows = await t.db.query<{ start_at: Date }>(
      'SELECT start_at FROM appointments WHERE crm_id = $1 ORDER BY start_at',
      [s.p.crmId],
    );
    expect(rows.map((r) => r.start_at.toISOString())).toEqual([
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
    ]);
  });

  it('keeps the wall-clock window every day across the fall-back change', async () => {
    const s = await setupScheduling(t);
    const res = await post(
      s,
      series(s, {}, { from: '2026-10-24', to: '2026-10-26', weekdays: ['1', '6', '7'], raster: 120 }),
    );
    expect(res.json().appointments.map((a: Apt) => a.start)).toEqual([
      '2026-10-24T09:00:00+02:00',
      '2026-10-25T09:00:00+01:00',
      '2026-10-26T09:00:00+01:00',
    ]);
  });

  it('reads the window in the provider zone when from and to carry an offset', async () => {
    const s = await setupScheduling(t);
    const res = await post(
      s,
      series(
        s,
        { from: '2026-06-01T07:00:00Z', to: '2026-06-01T09:00:00Z' },
        { to: '2026-06-01', weekdays: undefined },
      ),
    );
    expect(res.json().appointments.map((a: Apt) => a.start)).toEqual([
      '2026-06-01T09:00:00+02:00',
      '2026-06-01T10:00:00+02:00',
    ]);
  });

  it('creates nothing and answers 409 naming the clash when any appointment overlaps', async () => {
    const s = await setupScheduling(t);
    const blocker = await createAppointment(s, { start: '2026-06-03T10:30', end: '2026-06-03T10:45' });
    const res = await post(s, series(s));
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0].message).toContain(blocker.reference);
    const rows = await t.db.query('SELECT 1 FROM appointments WHERE crm_id = $1', [s.p.crmId]);
    expect(rows).toHaveLength(1);
  });

  it('gives each appointment of a series its own inline participations', async () => {
    const s = await setupScheduling(t);
    const res = await post(
      s,
      series(
        s,
        { participations: [{ name: 'Anna', email: 'anna@example.com', state: 'BOOKED' }] },
        { to: '2026-06-01', weekdays: undefined },
      ),
    );
    expect(res.statusCode, res.body).toBe(201);
    const apts = res.json().appointments;
    expect(
      apts.map((a: { reference: string; participations: { reference: string; customerReference: string }[] }) =>
        a.participations.map((p) => p.reference),
      ),
    ).toEqual([[`${apts[0].reference}-p1`], [`${apts[1].reference}-p1`]]);
    expect(apts[0].participations[0].customerReference).toBe(apts[1].participations[0].customerReference);
    expect(apts.map((a: { capacityLeft: number }) => a.capacityLeft)).toEqual([1, 1]);
  });

  it.each([
    ['weekdays missing over several days', {}, { weekdays: undefined }, 'body.series_data.weekdays is required'],
    ['an unknown weekday', {}, { weekdays: ['8'] }, 'body.series_data.weekdays.0'],
    [
      'a last date before the first',
      {},
      { from: '2026-06-07', to: '2026-06-01' },
      'body.series_data.to must not be before',
    ],
    ['a window ending before it starts', { to: '2026-06-01T08:00' }, {}, 'body.to must be a later time of day'],
    ['a raster of 0', {}, { raster: 0 }, 'body.series_data.raster'],
    ['a missing raster', {}, { raster: undefined }, 'body.series_data.raster is required'],
    ['a missing top-level from', { from: undefined }, {}, 'body.from is required for a series'],
    ['an invalid series date', {}, { from: 'June' }, 'body.series_data.from must be an ISO 8601'],
    ['no listed weekday in the dates', {}, { to: '2026-06-02', weekdays: ['5'] }, 'no appointment'],
  ])('rejects %s with 400', async (_what, over, data, message) => {
    const s = await setupScheduling(t);
    const res = await post(s, series(s, over, data));
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toContain(message);
  });
});
