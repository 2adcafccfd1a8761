/** The widget's API client (widget/src/api.js) with a fetch of our own: URLs, bodies, answers, failures. */
import { describe, expect, it } from 'vitest';
import { ApiError, createApi } from '../../widget/src/api.js';

type Call = { url: string; init: RequestInit };

function fakeFetch(answer: (call: Call) => Response | Promise<Response>) {
  const calls: Call[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    const call = { url, init };
    calls.push(call);
    return answer(call);
  }) as unknown as typeof globalThis.fetch;
  return { calls, fetch };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('widget API client', () => {
  it('calls A1-A5 under the base URL with the resource, channel, formats and language', async () => {
    const f = fakeFetch(() => json(200, { ok: true }));
    const api = createApi(
      'https://svc.example/booking/',
      { ref: 'flat 1@acme', channelKey: 'RESOURCE_PUBLIC' },
      { fetch: f.fetch },
    );
    await api.publicData();
    await api.activeProducts('en_GB');
    await api.bookables(undefined, 'de_DE');
    await api.reserve({ timeslot_uuid: 't' });
    await api.book({ email: 'a@b.de' });
    expect(f.calls.map((c) => `${c.init.method} ${c.url}`)).toEqual([
      'POST https://svc.example/booking/resources/public_data?ref=flat+1%40acme&channelKey=RESOURCE_PUBLIC',
      'POST https://svc.example/booking/products/active_products' +
        '?ref=flat+1%40acme&channelKey=RESOURCE_PUBLIC&languageTag=en_GB',
      'GET https://svc.example/booking/resources/flat%201%40acme/upcoming_bookables' +
        '?channelKey=RESOURCE_PUBLIC&groupFormat=yyyy-MM-dd&timeFormat=HH%3Amm&languageTag=de_DE',
      'POST https://svc.example/booking/rest/1/resources/flat%201%40acme/reserve_appointment' +
        '?channelKey=RESOURCE_PUBLIC',
      'POST https://svc.example/booking/resources/flat%201%40acme/create_appointment_with_consumer?timeFormat=HH%3Amm',
    ]);
    expect(f.calls[3].init).toMatchObject({ body: '{"timeslot_uuid":"t"}', mode: 'cors', credentials: 'omit' });
    expect((f.calls[3].init.headers as Record<string, string>)['Content-Type']).toBe('application/json');
    expect(f.calls[0].init.body).toBeUndefined();
  });

  it('answers null for 204 and the JSON otherwise', async () => {
    const api = createApi(
      'http://x/',
      { ref: 'r', channelKey: 'RESOURCE_PUBLIC' },
      { fetch: fakeFetch(() => new Response(null, { status: 204 })).fetch },
    );
    expect(await api.bookables('p', 'en_GB')).toBeNull();
  });

  it("throws the service's error items with status and first code", async () => {
    const api = createApi(
      'http://x/',
      { ref: 'r', channelKey: 'RESOURCE_PUBLIC' },
      {
        fetch: fakeFetch(() =>
          json(412, { 'api-info': { version: '1' }, errors: [{ errorCode: '201', message: 'slot taken' }] }),
        ).fetch,
      },
    );
    const err = await api.reserve({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 412, code: '201', message: 'slot taken' });
    const html = createApi(
      'http://x/',
      { ref: 'r', channelKey: 'RESOURCE_PUBLIC' },
      { fetch: fakeFetch(() => new Response('<h1>bad gateway</h1>', { status: 502 })).fetch },
    );
    expect(await html.publicData().catch((e: unknown) => e)).toMatchObject({
      status: 502,
      errors: [],
      message: 'HTTP 502',
    });
  });

  it('turns a network error and a timeout into status 0', async () => {
    const down = createApi(
      'http://x/',
      { ref: 'r', channelKey: 'RESOURCE_PUBLIC' },
      { fetch: fakeFetch(() => Promise.reject(new TypeError('failed to fetch'))).fetch },
    );
    expect(await down.publicData().catch((e: unknown) => e)).toMatchObject({ status: 0 });
    const slow = fakeFetch(
      ({ init }) =>
        new Promise<Response>((_, reject) =>
          init.signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
        ),
    );
    const hanging = createApi(
      'http://x/',
      { ref: 'r', channelKey: 'RESOURCE_PUBLIC' },
      { fetch: slow.fetch, timeoutMs: 50 },
    );
    expect(await hanging.publicData().catch((e: unknown) => e)).toMatchObject({ status: 0 });
  });
});
