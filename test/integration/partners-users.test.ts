import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, uniqueId, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const newUser = (over: Record<string, unknown> = {}) => {
  const id = uniqueId('u');
  return { reference: `${id}@crm`, email: `${id}@example.com`, username: id, lastName: 'Muster', ...over };
};

async function outboxFor(email: string) {
  return t.db.query<{ template: string; recipient: string }>(
    'SELECT template, recipient FROM outbox WHERE recipient = $1',
    [email],
  );
}

describe('C1 create user', () => {
  it('creates a new user with 201 and the api-info envelope', async () => {
    const p = await newPartner(t);
    const body = newUser({ firstName: 'Max', phone: '+49301234', mobile: '+491701234' });
    const res = await p.call('POST', '/user', body);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      'api-info': { version: '1' },
      user: {
        reference: body.reference,
        email: body.email,
        username: body.username,
        firstName: 'Max',
        lastName: 'Muster',
        phone: '+49301234',
        mobile: '+491701234',
        language: 'de',
      },
    });
  });

  it('returns an existing reference with 200 and updates names and numbers (rule 1)', async () => {
    const p = await newPartner(t);
    const body = newUser({ firstName: 'Max' });
    await p.call('POST', '/user', body);
    const res = await p.call('POST', '/user', { ...body, lastName: 'Neu', firstName: 'Moritz', mobile: '+4917000' });
    expect(res.statusCode).toBe(200);
    expect(res.json().user).toMatchObject({
      lastName: 'Neu',
      firstName: 'Moritz',
      mobile: '+4917000',
      email: body.email,
    });
  });

  it('gives a numbered plus-suffix email to a new reference with a taken email (rule 2)', async () => {
    const p = await newPartner(t);
    const first = newUser();
    await p.call('POST', '/user', first);
    const second = await p.call('POST', '/user', newUser({ email: first.email }));
    expect(second.statusCode).toBe(201);
    expect(second.json().user.email).toBe(first.email.replace('@', '+1@'));
    const third = await p.call('POST', '/user', newUser({ email: first.email }));
    expect(third.json().user.email).toBe(first.email.replace('@', '+2@'));
  });

  it('adopts a user of the same email without reference and queues a verification mail (rule 3)', async () => {
    const p = await newPartner(t);
    const email = `${uniqueId('c')}@example.com`;
    await t.db.query(
      `INSERT INTO users (crm_id, email, username, email_verified, language) VALUES ($1, $2, $2, true, 'en')`,
      [p.crmId, email],
    );
    const body = newUser({ email });
    const res = await p.call('POST', '/user', body);
    expect(res.statusCode).toBe(200);
    expect(res.json().user).toMatchObject({ reference: body.reference, email });
    const [row] = await t.db.query<{ email_verified: boolean }>(
      'SELECT email_verified FROM users WHERE crm_id = $1 AND email = $2',
      [p.crmId, email],
    );
    expect(row.email_verified).toBe(false);
    expect(await outboxFor(email)).toEqual([{ template: 'user-email-verification', recipient: email }]);
  });

  it('takes the language of a new user from the PLAY_LANG cookie (rule 4)', async () => {
    const p = await newPartner(t);
    const res = await t.app.inject({
      method: 'POST',
      url: `/crms/${p.crmId}/user`,
      headers: { 'x-service-client-id': p.key, cookie: 'PLAY_LANG=en' },
      payload: newUser(),
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().user.language).toBe('en');
  });

  it.each([
    ['reference', { reference: undefined }],
    ['email', { email: '' }],
    ['username', { username: null }],
    ['lastName', { lastName: undefined }],
  ])('rejects a missing, null or empty %s with 400 naming the field (rule 5)', async (field, over) => {
    const p = await newPartner(t);
    const res = await p.call('POST', '/user', newUser(over));
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ errorCode: 'VALIDATION' });
    expect(res.json().errors[0].message).toContain(field);
  });

  it.each(['a/b', 'a?b', 'a:b', 'a&b', 'a#b', 'a\\b'])('rejects the username %s with 400', async (username) => {
    const p = await newPartner(t);
    const res = await p.call('POST', '/user', newUser({ username }));
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toContain('username');
  });

  it('answers 409 when the username belongs to another user (rule 5)', async () => {
    const p = await newPartner(t);
    const first = newUser();
    await p.call('POST', '/user', first);
    const res = await p.call('POST', '/user', newUser({ username: first.username }));
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0].message).toBe('User with given username already exists.');
  });
});

describe('C2 read and update a user', () => {
  it('reads a user by URL-encoded reference and 404s an unknown one', async () => {
    const p = await newPartner(t);
    const body = newUser();
    await p.call('POST', '/user', body);
    const res = await p.call('GET', `/user/${encodeURIComponent(body.reference)}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().user.email).toBe(body.email);
    const missing = await p.call('GET', '/user/nobody%40crm');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({
      'api-info': { version: '1' },
      errors: [{ errorCode: 'NOT_FOUND', message: expect.any(String) }],
    });
  });

  it('updates only the given fields and answers 409 for a taken email', async () => {
    const p = await newPartner(t);
    const a = newUser({ firstName: 'Anna' });
    const b = newUser();
    await p.call('POST', '/user', a);
    await p.call('POST', '/user', b);
    const res = await p.call('PUT', `/user/${a.reference}`, { lastName: 'Neu' });
    expect(res.statusCode).toBe(200);
    expect(res.json().user).toMatchObject({ lastName: 'Neu', firstName: 'Anna', email: a.email });
    const clash = await p.call('PUT', `/user/${a.reference}`, { email: b.email });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().errors[0].message).toBe('User with given email already exists.');
  });
});
