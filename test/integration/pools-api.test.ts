/**
 * Pools in the partner API (issue 53, DESIGN 7.11, docs/pools.md): create, list, read, change and
 * delete; members are resources of the provider (unknown: 404 naming it; twice: 400); a pool's
 * reference and a resource's never clash (409 either way).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uniqueId, type TestApp } from '../helpers/app.js';
import { setupBooking } from '../helpers/bookingFixtures.js';
import { createResource } from '../helpers/offeringsFixtures.js';
import { setupPool } from '../helpers/poolFixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const enc = encodeURIComponent;

describe('pools in the partner API', () => {
  it('creates a pool with defaults, reads it, lists it, changes it and deletes it', async () => {
    const s = await setupPool(t, 3);
    expect(s.pool).toMatchObject({
      publicName: 'Any stylist',
      description: null,
      assignment: 'LEAST_RECENTLY_BOOKED',
      members: s.members.map((m) => ({ resourceReference: m.reference, priority: 2 })),
    });
    const path = `${s.base}/pools/${enc(s.pool.reference)}`;
    const read = await s.p.call('GET', path);
    expect(read.statusCode).toBe(200);
    expect(read.json().pool).toEqual(s.pool);
    const list = await s.p.call('GET', `${s.base}/pools`);
    expect(list.json().pools).toEqual([s.pool]);

    const changed = await s.p.call('POST', path, {
      assignment: 'PRIORITY',
      description: 'whoever is free',
      members: [
        { resourceReference: s.members[2].reference, priority: 4 },
        { resourceReference: s.members[0].reference },
      ],
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().pool).toMatchObject({
      publicName: 'Any stylist',
      description: 'whoever is free',
      assignment: 'PRIORITY',
      members: [
        { resourceReference: s.members[2].reference, priority: 4 },
        { resourceReference: s.members[0].reference, priority: 2 },
      ],
    });

    expect((await s.p.call('DELETE', path)).statusCode).toBe(204);
    expect((await s.p.call('GET', path)).statusCode).toBe(404);
    expect((await s.p.call('DELETE', path)).statusCode).toBe(404);
  });

  it('answers 404 naming an unknown member and 400 naming a member given twice', async () => {
    const b = await setupBooking(t);
    const unknown = await b.p.call('POST', `${b.base}/pools`, {
      reference: `${uniqueId('pool')}@crm`,
      publicName: 'Any',
      members: [{ resourceReference: b.resource.reference }, { resourceReference: 'nope@crm' }],
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().errors[0].message).toContain('body.members[1].resourceReference');
    const twice = await b.p.call('POST', `${b.base}/pools`, {
      reference: `${uniqueId('pool')}@crm`,
      publicName: 'Any',
      members: [{ resourceReference: b.resource.reference }, { resourceReference: b.resource.reference }],
    });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().errors[0].message).toContain('body.members[1].resourceReference');
  });

  it('refuses bad bodies with 400 naming the field', async () => {
    const b = await setupBooking(t);
    const cases: [object, string][] = [
      [{ publicName: 'x', members: [{ resourceReference: b.resource.reference }] }, 'reference'],
      [{ reference: 'p@crm', publicName: 'x', members: [] }, 'members'],
      [
        { reference: 'p@crm', publicName: 'x', members: [{ resourceReference: b.resource.reference, priority: 5 }] },
        'priority',
      ],
      [
        {
          reference: 'p@crm',
          publicName: 'x',
          members: [{ resourceReference: b.resource.reference }],
          assignment: 'X',
        },
        'assignment',
      ],
    ];
    for (const [body, field] of cases) {
      const res = await b.p.call('POST', `${b.base}/pools`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().errors[0].message).toContain(field);
    }
  });

  it("never lets a pool's reference be a resource's, whichever comes first (409)", async () => {
    const b = await setupBooking(t);
    const clash = await b.p.call('POST', `${b.base}/pools`, {
      reference: b.resource.reference,
      publicName: 'Any',
      members: [{ resourceReference: b.resource.reference }],
    });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().errors[0].errorCode).toBe('CONFLICT');
    const poolRef = `${uniqueId('pool')}@crm`;
    const made = await b.p.call('POST', `${b.base}/pools`, {
      reference: poolRef,
      publicName: 'Any',
      members: [{ resourceReference: b.resource.reference }],
    });
    expect(made.statusCode).toBe(201);
    const later = await b.p.call('POST', `${b.base}/resources`, {
      reference: poolRef,
      publicName: 'Later',
      internalName: 'L',
    });
    expect(later.statusCode).toBe(409);
    expect(later.json().errors[0].message).toContain('pool');
    const again = await b.p.call('POST', `${b.base}/pools`, {
      reference: poolRef,
      publicName: 'Again',
      members: [{ resourceReference: b.resource.reference }],
    });
    expect(again.statusCode).toBe(409);
  });

  it("keeps another partner's pools out of sight", async () => {
    const s = await setupPool(t, 1);
    const other = await setupBooking(t);
    const res = await other.p.call('GET', `/provider/${enc(s.provider.providerRef)}/pools`);
    expect(res.statusCode).toBe(404);
  });

  it('drops a deleted resource from its pools', async () => {
    const s = await setupPool(t, 2);
    const extra = await createResource(s.p, s.provider.providerRef, {});
    expect(extra.reference).toBeTruthy();
    const del = await s.p.call('DELETE', `${s.base}/resources/${enc(s.members[1].reference)}`);
    expect(del.statusCode).toBe(204);
    const read = await s.p.call('GET', `${s.base}/pools/${enc(s.pool.reference)}`);
    expect(read.json().pool.members).toEqual([{ resourceReference: s.members[0].reference, priority: 2 }]);
  });
});
