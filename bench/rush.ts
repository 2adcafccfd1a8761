/**
 * RUSH: the slot listing (A1) of ONE resource under a rush. Viewers poll it in a closed loop, as a
 * browser asks for it (Accept-Encoding: br, gzip; no If-None-Match, so every answer is a full one),
 * while consumers book places of that same listing (reserve + create, as W2), each booking changing
 * it. Measured: A1's latency and throughput, the bytes of an answer on the wire (before any
 * Content-Encoding is undone) and uncompressed, and the bookings as W2 measures them.
 */
import { bookingRun, type BookingRun } from './booking.js';
import { client, Latencies, type Timed } from './http.js';
import type { BookingData, Slot } from './seed.js';
import { bookablesOf } from './w1.js';

export const RUSH_SECONDS = 15;
export const RUSH_VIEWERS = 20;
export const RUSH_BOOKERS = 20;

/** A1 of the data's first resource for its product. */
export const a1Path = (data: BookingData) => `/resources/${data.resourceUuids[0]}/upcoming_bookables?prdRef=${data.productUuid}`;
/** What a browser sends: compressed answers are welcome. */
export const A1_HEADERS = { 'accept-encoding': 'br, gzip' };

/** The Content-Encoding of an answer, `identity` when it has none. */
export const encodingOf = (r: Timed) => r.headers['content-encoding'] ?? 'identity';

/** An A1 answer's size uncompressed and what it lists. */
export function a1Contents(r: Timed) {
  const items = bookablesOf(r.body);
  return { bytes: Buffer.byteLength(r.body), items: items.length, lots: items.filter((i) => i.kind === 'models.LotAppointment').length };
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
    /** the answer before the rush and the last 2xx answer, uncompressed */
    first: ReturnType<typeof a1Contents>;
    last: ReturnType<typeof a1Contents> | null;
  };
  bookings: BookingRun;
}

export async function rushRun(serverUrl: string, data: BookingData, take: () => { n: number; slot: Slot }): Promise<RushRun> {
  const path = a1Path(data);
  const send = client(serverUrl, RUSH_VIEWERS);
  const warm = await send('GET', path, A1_HEADERS); // the listing computed once before the rush
  if (warm.status !== 200) throw new Error(`A1 before the rush: ${warm.status} ${warm.body}`);
  // Every viewer has the page open, its connection too (as a browser keeps it alive): what is timed
  // is the service under the rush, not 20 TCP handshakes of the load generator in one millisecond.
  await Promise.all(Array.from({ length: RUSH_VIEWERS }, () => send('GET', path, A1_HEADERS)));
  const latencies = new Latencies();
  const encodings: Record<string, number> = {};
  let non2xx = 0;
  let errors = 0;
  let wireTotal = 0;
  let wireMax = 0;
  let last: Timed | undefined;
  const view = async (deadline: number) => {
    while (Date.now() < deadline) {
      let r: Timed;
      try {
        r = await send('GET', path, A1_HEADERS);
      } catch {
        errors++;
        continue;
      }
      latencies.add(r.ms);
      if (r.status < 200 || r.status >= 300) {
        non2xx++;
        continue;
      }
      wireTotal += r.wire.length;
      wireMax = Math.max(wireMax, r.wire.length);
      encodings[encodingOf(r)] = (encodings[encodingOf(r)] ?? 0) + 1;
      last = r;
    }
  };
  const started = performance.now();
  const deadline = Date.now() + RUSH_SECONDS * 1000;
  const [bookings] = await Promise.all([bookingRun(serverUrl, data, RUSH_BOOKERS, RUSH_SECONDS, take), ...Array.from({ length: RUSH_VIEWERS }, () => view(deadline))]);
  const seconds = (performance.now() - started) / 1000;
  const s = latencies.summary();
  const full = s.n - non2xx;
  return {
    a1: { ...s, perSecond: s.n / seconds, non2xx, errors, wireMean: full ? wireTotal / full : NaN, wireMax, encodings, first: a1Contents(warm), last: last ? a1Contents(last) : null },
    bookings,
  };
}
