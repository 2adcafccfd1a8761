/** FEED: a calendar app polling the calendar feed of W1's resource (28 days, 150 appointments). */
import autocannon from 'autocannon';
import type { W1Data } from './seed.js';

export const FEED_SECONDS = 5;
export const FEED_CONNECTIONS = 10;

async function measure(url: string, headers: Record<string, string> = {}) {
  await autocannon({ url, headers, connections: FEED_CONNECTIONS, duration: 2 }); // warm-up
  const r = await autocannon({ url, headers, connections: FEED_CONNECTIONS, duration: FEED_SECONDS });
  return { p50: r.latency.p50, p99: r.latency.p99, rps: r.requests.average, non2xx: r.non2xx, errors: r.errors };
}

/** Creates the feed through the partner API of the running service, then polls it: full answers, then 304s. */
export async function feedRun(serverUrl: string, data: W1Data) {
  const { crmId, key, providerRef } = data.partner;
  const created = await fetch(`${serverUrl}/crms/${crmId}/provider/${encodeURIComponent(providerRef)}/calendar-feeds`, {
    method: 'POST',
    headers: { 'x-service-client-id': key, 'content-type': 'application/json' },
    body: JSON.stringify({ resourceReference: data.resourceRef }),
  });
  if (created.status !== 201) throw new Error(`creating the feed: ${created.status} ${await created.text()}`);
  const { feed } = (await created.json()) as { feed: { url: string } };
  const url = `${serverUrl}${new URL(feed.url).pathname}`;
  const began = performance.now();
  const first = await fetch(url);
  const body = await first.text();
  const coldMs = performance.now() - began;
  const etag = first.headers.get('etag') ?? '';
  return {
    status: first.status,
    bytes: Buffer.byteLength(body),
    events: body.split('BEGIN:VEVENT').length - 1,
    coldMs,
    full: await measure(url),
    notModified: await measure(url, { 'if-none-match': etag }),
  };
}
