/**
 * The four inputs of issue 57, each answered as the document says: a time that is no date, a QUERY
 * without Content-Type, a JSON null body, and consumer pages asked for what can never succeed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPartner, startTestApp, type Partner, type TestApp } from '../helpers/app.js';
import { setupProvider } from '../helpers/fixtures.js';
import { documentAjv } from '../helpers/schemaArbitrary.js';

let t: TestApp;
let p: Partner;
let base: string;
// biome-ignore lint/suspicious/noExplicitAny: the published document, walked as plain JSON
let doc: any;
beforeAll(async () => {
  t = await startTestApp();
  p = await newPartner(t);
  base = `/provider/${encodeURIComponent((await setupProvider(p)).providerRef)}`;
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
});
afterAll(() => t.close());

const bodySchema = (path: string, method: string) =>
  doc.paths[path][method].requestBody.content['application/json'].schema;

describe('issue 57: what the document calls invalid the server refuses, and the other way round', () => {
  it('POST .../closures {"start":"0","end":"0"}: the document and the server refuse it, naming the field', async () => {
    const body = { start: '0', end: '0' };
    expect(documentAjv().validate(bodySchema('/crms/{crmId}/provider/{providerRef}/closures', 'post'), body)).toBe(
      false,
    );
    const res = await p.call('POST', `${base}/closures`, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({
      errorCode: 'VALIDATION',
      message: expect.stringMatching(/^body\.start must be an ISO 8601 date-time/),
    });
    const real = await p.call('POST', `${base}/closures`, { start: '2026-07-01T10:00', end: '2026-07-02T10:00' });
    expect(real.statusCode, real.body).toBe(201);
  });

  it('QUERY /healthz without a body or Content-Type: 405 with Allow; on an unknown path 404', async () => {
    const known = await t.app.inject({ method: 'QUERY' as 'GET', url: '/healthz' });
    expect(known.statusCode).toBe(405);
    expect(known.headers.allow).toBe('GET, HEAD');
    expect(known.json().errors[0].errorCode).toBe('METHOD_NOT_ALLOWED');
    const unknown = await t.app.inject({ method: 'QUERY' as 'GET', url: '/no/such/path' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().errors[0].errorCode).toBe('NOT_FOUND');
  });

  it('POST .../calendar-feeds with a JSON null body: 400 (no body at all: a feed of the whole provider)', async () => {
    const refused = await t.app.inject({
      method: 'POST',
      url: `/crms/${p.crmId}${base}/calendar-feeds`,
      headers: { 'x-service-client-id': p.key, 'content-type': 'application/json' },
      payload: 'null',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors[0].message).toBe('body must be object');
    expect(
      documentAjv().validate(bodySchema('/crms/{crmId}/provider/{providerRef}/calendar-feeds', 'post'), null),
    ).toBe(false);
    const feeds = await p.call('GET', `${base}/calendar-feeds`);
    expect(feeds.json().feeds).toEqual([]);
    const none = await t.app.inject({
      method: 'POST',
      url: `/crms/${p.crmId}${base}/calendar-feeds`,
      headers: { 'x-service-client-id': p.key },
    });
    expect(none.statusCode, none.body).toBe(201);
  });

  describe('a consumer page asked what never succeeds says what is wrong in its language, not "try again"', () => {
    const tryAgain = /try again|später|noch einmal versuchen/i;
    const page = (res: { statusCode: number; headers: Record<string, unknown>; body: string }) => {
      expect(res.statusCode).toBe(400);
      expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
      expect(res.body).not.toMatch(tryAgain);
      return res.body;
    };

    it('POST /cancel/0 with a JSON [] body', async () => {
      const json = { 'content-type': 'application/json' };
      const en = page(
        await t.app.inject({
          method: 'POST',
          url: '/cancel/0',
          headers: { ...json, 'accept-language': 'en' },
          payload: '[]',
        }),
      );
      expect(en).toContain('<html lang="en">');
      expect(en).toContain('The data sent is not a form.');
      const de = page(
        await t.app.inject({
          method: 'POST',
          url: '/cancel/0',
          headers: { ...json, 'accept-language': 'de-DE' },
          payload: '[]',
        }),
      );
      expect(de).toContain('Die gesendeten Daten sind kein Formular.');
    });

    it('GET /cancel/0?lang=%00, and the same on /requests', async () => {
      const cancel = page(
        await t.app.inject({ method: 'GET', url: '/cancel/0?lang=%00', headers: { 'accept-language': 'en-GB' } }),
      );
      expect(cancel).toContain('The parameter “lang” in the address is not valid.');
      const decision = page(await t.app.inject({ method: 'GET', url: '/requests/0?lang=%00' }));
      expect(decision).toContain('Der Parameter „lang“ in der Adresse ist ungültig.');
      const form = page(
        await t.app.inject({
          method: 'POST',
          url: '/requests/0',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'decision=maybe',
        }),
      );
      expect(form).toContain('„decision“ im Formular ist ungültig.');
    });

    it('a body of a media type the page does not take (415) and an unknown token (404) say so too', async () => {
      const media = await t.app.inject({
        method: 'POST',
        url: '/cancel/0',
        headers: { 'content-type': 'application/xml', 'accept-language': 'en' },
        payload: '<a/>',
      });
      expect(media.statusCode).toBe(415);
      expect(media.body).toContain('it expects a form');
      expect(media.body).not.toMatch(tryAgain);
      const unknown = await t.app.inject({ method: 'GET', url: '/cancel/0', headers: { 'accept-language': 'en' } });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.body).toContain('This cancellation link is not valid');
    });
  });
});
