import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
import { createAppointment, createCustomer, participate, setupScheduling } from '../helpers/schedulingFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('concurrent scheduling requests', () => {
  it('gives exactly 3 of 50 concurrent D9 calls a place in an appointment of capacity 3', async () => {
    const s = await setupScheduling(t);
    const apt = await createAppointment(s, { capacity: 3 });
    const customers = [];
    for (let i = 0; i < 50; i++) customers.push(await createCustomer(s));

    const results = await Promise.all(
      customers.map((c) =>
        participate(s, { appointmentReference: apt.reference, customerReference: c.customerReference }),
      ),
    );

    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((x) => x === 201)).toHaveLength(3);
    expect(statuses.filter((x) => x === 409)).toHaveLength(47);
    expect(
      results.filter((r) => r.statusCode === 409).every((r) => r.json().errors[0].errorCode === 'CAPACITY_EXHAUSTED'),
    ).toBe(true);
    const [row] = await t.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM participations WHERE appointment_id = $1',
      [apt.uuid],
    );
    expect(row.n).toBe(3);
    const [listed] = (await s.p.call('GET', `${s.base}/appointments`)).json();
    expect(listed).toMatchObject({ capacityLeft: 0 });
    expect(listed.participations).toHaveLength(3);
  }, 120_000);

  it('creates exactly one of 20 concurrent overlapping appointments on one resource', async () => {
    const s = await setupScheduling(t);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        s.p.call('POST', `${s.base}/appointments`, {
          reference: `${uniqueId('apt')}@crm`,
          start: `2026-07-01T10:${String(i).padStart(2, '0')}`,
          end: '2026-07-01T11:30',
          resourceReference: s.resourceRef,
          productReference: s.productRef,
        }),
      ),
    );
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(results.filter((r) => r.statusCode === 409)).toHaveLength(19);
    expect((await s.p.call('GET', `${s.base}/appointments`)).json()).toHaveLength(1);
  }, 60_000);
});
