/**
 * COLD: the first A1 after a booking, which no cached answer can serve. Sequentially, on a quiet
 * service, COLD_BOOKINGS times: one consumer books a place of the listing (reserve + create), then
 * ONE A1 is timed (Accept-Encoding: br, gzip). Each answer is compared with the one before (its
 * ETag, or its body when it has none): all should differ, which shows each was computed afresh.
 */
import { bookOnce } from './booking.js';
import { client, encodingOf, Latencies, type Timed } from './http.js';
import { a1Path, A1_HEADERS } from './rush.js';
import type { BookingData, Slot } from './seed.js';

export const COLD_BOOKINGS = 100;

/** What identifies an answer's content: its ETag, else its body. */
const version = (r: Timed) => r.headers.etag ?? r.body;

export async function coldRun(serverUrl: string, data: BookingData, take: () => { n: number; slot: Slot }) {
  const send = client(serverUrl, 1);
  const path = a1Path(data);
  const latencies = new Latencies();
  let previous = await send('GET', path, A1_HEADERS);
  let differed = 0;
  let withETag = 0;
  let failedBookings = 0;
  const encodings = new Set<string>();
  for (let i = 0; i < COLD_BOOKINGS; i++) {
    const { created } = await bookOnce(send, data, take());
    if (created?.status !== 201) failedBookings++;
    const r = await send('GET', path, A1_HEADERS);
    latencies.add(r.ms);
    if (r.status !== 200) latencies.failed++;
    if (r.headers.etag) withETag++;
    encodings.add(encodingOf(r));
    if (version(r) !== version(previous)) differed++;
    previous = r;
  }
  return { ...latencies.summary(), differed, withETag, failedBookings, encodings: [...encodings] };
}
