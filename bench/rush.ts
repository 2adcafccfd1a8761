/**
 * RUSH: the slot listing (A1) of ONE resource under a rush. Viewers poll it in a closed loop, as a
 * browser asks for it (Accept-Encoding: br, gzip; no If-None-Match, so every answer is a full one),
 * while consumers book places of that same listing (reserve + create, as W2), each booking changing
 * it. Measured: A1's latency and throughput, the bytes of an answer on the wire (before any
 * Content-Encoding is undone) and uncompressed, and the bookings as W2 measures them.
 */
import { bookingRun, type BookingRun } from './booking.js';
import { client, decoded, Latencies } from './http.js';
import { viewersInWorker } from './viewers.js';
import type { BookingData, Slot } from './seed.js';
import { bookablesOf } from './w1.js';

export const RUSH_SECONDS = 15;
export const RUSH_VIEWERS = 20;
export const RUSH_BOOKERS = 20;

/** A1 of the data's first resource for its product. */
export const a1Path = (data: BookingData) =>
  `/resources/${data.resourceUuids[0]}/upcoming_bookables?prdRef=${data.productUuid}`;
/** What a browser sends: compressed answers are welcome. */
export const A1_HEADERS = { 'accept-encoding': 'br, gzip' };

/** An A1 answer's size uncompressed and what it lists. */
export function a1Contents(body: string) {
  const items = bookablesOf(body);
  return {
    bytes: Buffer.byteLength(body),
    items: items.length,
    lots: items.filter((i) => i.kind === 'models.LotAppointment').length,
  };
}

export interface RushRun {
  a1: ReturnType<Latencies['summary']> & {
    perSecond: number;
    non2xx: number;
    errors: number;
    /** body bytes per 2xx answer as received, mean and largest */
    wireMean: number;
    wireMax: number;
    /** 2xx answers per Content-Encoding */
    encodings: Record<string, number>;
    /** the viewers' own event-loop lag at p99 (their worker thread's), ms */
    viewerLagP99: number;
    /** the answer before the rush and the last 2xx answer, uncompressed */
    first: ReturnType<typeof a1Contents>;
    last: ReturnType<typeof a1Contents> | null;
  };
  bookings: BookingRun;
}

export async function rushRun(
  serverUrl: string,
  data: BookingData,
  take: () => { n: number; slot: Slot },
): Promise<RushRun> {
  const path = a1Path(data);
  const send = client(serverUrl, RUSH_VIEWERS);
  const warm = await send('GET', path, A1_HEADERS); // the listing computed once before the rush
  if (warm.status !== 200) throw new Error(`A1 before the rush: ${warm.status} ${warm.body}`);
  // Every viewer has the page open, its connection too (as a browser keeps it alive): what is timed
  // is the service under the rush, not 20 TCP handshakes of the load generator in one millisecond.
  const viewers = await viewersInWorker({ serverUrl, path, headers: A1_HEADERS, viewers: RUSH_VIEWERS });
  const started = performance.now();
  const [bookings, seen] = await Promise.all([
    bookingRun(serverUrl, data, { consumers: RUSH_BOOKERS, length: RUSH_SECONDS, take }),
    viewers.start(RUSH_SECONDS),
  ]);
  const seconds = (performance.now() - started) / 1000;
  const latencies = new Latencies();
  for (const ms of seen.ms) latencies.add(ms);
  const s = latencies.summary();
  const full = s.n - seen.non2xx;
  const last = seen.last && a1Contents(decoded(Buffer.from(seen.last.wire), seen.last.encoding).toString('utf8'));
  return {
    a1: {
      ...s,
      perSecond: s.n / seconds,
      non2xx: seen.non2xx,
      errors: seen.errors,
      wireMean: full ? seen.wireTotal / full : NaN,
      wireMax: seen.wireMax,
      encodings: seen.encodings,
      first: a1Contents(warm.body),
      last,
      viewerLagP99: seen.lagP99,
    },
    bookings,
  };
}
