/**
 * EDGE: RUSH's listing served at the edge. The shipped recipe (deploy/nginx.conf, Debian's nginx,
 * test/helpers/nginx.ts) runs in front of the service; EDGE_VIEWERS viewers poll A1 through it
 * (br) while RUSH's bookers book places of that listing against the service, as RUSH does.
 *
 * Measured: A1 at the edge (every answer's time, in the viewers' own worker thread), the service's
 * A1 requests (its /metrics, so every request that got through nginx counts), the bookings, and the
 * listing's age at the viewers. The age of an answer is the time since the earliest acknowledged hold
 * it does not show: every hold takes a place, so a listing shows exactly the holds it counts
 * (the sum of capacity - capacity_left over its bookables); with the holds in the order the
 * bookers got their 201s, an answer that counts k of this run's holds while more had been
 * acknowledged before it arrived is as old as the (k+1)-th acknowledgement, else 0. Nothing is
 * sampled: every answer is judged, each distinct listing (ETag) decoded once.
 */
import { readFileSync } from 'node:fs';
import { bookingRun, type BookingRun } from './booking.js';
import { processTicks, TICK_MS } from './cpu.js';
import { client, decoded, Latencies } from './http.js';
import { metricsOf } from './metrics.js';
import { A1_HEADERS, a1Path, RUSH_BOOKERS } from './rush.js';
import type { BookingData, Slot } from './seed.js';
import { viewersInWorker } from './viewers.js';
import { startEdge } from '../test/helpers/nginx.js';

export const EDGE_SECONDS = 15;
export const EDGE_VIEWERS = 200;
export const EDGE_BOOKERS = RUSH_BOOKERS;
/** Each viewer's pause between an answer and its next poll: 200 viewers then ask up to 2,000 times a second. */
export const EDGE_POLL_MS = 100;
/** the route label A1 has in the service's /metrics */
const A1_ROUTE = 'route="/resources/:ref/upcoming_bookables"';

/** The places a listing shows taken: capacity - capacity_left summed over its bookables. */
function taken(json: string): number {
  const body = JSON.parse(json) as Record<string, { capacity: number; capacity_left: number }[]>;
  return Object.entries(body)
    .filter(([k]) => k !== 'public_visible')
    .flatMap(([, items]) => items)
    .reduce((sum, i) => sum + i.capacity - i.capacity_left, 0);
}

/** CPU ticks of nginx: its master and its workers (the master's children, Linux /proc). */
function nginxTicks(master: number): number {
  const workers = readFileSync(`/proc/${master}/task/${master}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  return workers.reduce((sum, pid) => sum + processTicks(pid), processTicks(master));
}

/** A1 requests the service has answered so far, every status. */
async function a1Served(serviceUrl: string): Promise<number> {
  let n = 0;
  for (const [key, value] of await metricsOf(serviceUrl))
    if (
      key.startsWith('http_request_duration_seconds_count{') &&
      key.includes(A1_ROUTE) &&
      key.includes('method="GET"')
    )
      n += value;
  return n;
}

export interface EdgeRun {
  a1: ReturnType<Latencies['summary']> & {
    perSecond: number;
    non2xx: number;
    errors: number;
    encodings: Record<string, number>;
    viewerLagP99: number;
  };
  /** A1 requests the service answered during the run, per second */
  originPerSecond: number;
  /** listing variants the viewers saw (Content-Encodings): the edge keeps one entry per each */
  variants: number;
  /** the listings' age at the viewers, ms */
  age: ReturnType<Latencies['summary']> & { over2s: number; versions: number };
  bookings: BookingRun;
  /** nginx's CPU over the run, ms */
  nginxMs: number;
}

export async function edgeRun(
  serviceUrl: string,
  data: BookingData,
  take: () => { n: number; slot: Slot },
): Promise<EdgeRun> {
  const edge = await startEdge(serviceUrl);
  try {
    const path = a1Path(data);
    const warm = await client(serviceUrl, 1)('GET', path, A1_HEADERS); // straight from the service, nobody booking yet
    if (warm.status !== 200) throw new Error(`A1 before EDGE: ${warm.status} ${warm.body}`);
    const takenBefore = taken(warm.body);
    const viewers = await viewersInWorker({
      serverUrl: edge.url,
      path,
      headers: A1_HEADERS,
      viewers: EDGE_VIEWERS,
      pauseMs: EDGE_POLL_MS,
      versions: true,
    });
    const held: number[] = [];
    const servedBefore = await a1Served(serviceUrl);
    const nginxBefore = nginxTicks(edge.pid);
    const started = performance.now();
    const onHeld = () => held.push(performance.timeOrigin + performance.now());
    const [bookings, seen] = await Promise.all([
      bookingRun(serviceUrl, data, { consumers: EDGE_BOOKERS, length: EDGE_SECONDS, take, onHeld }),
      viewers.start(EDGE_SECONDS),
    ]);
    const seconds = (performance.now() - started) / 1000;
    const origin = (await a1Served(serviceUrl)) - servedBefore;
    const nginxMs = (nginxTicks(edge.pid) - nginxBefore) * TICK_MS;

    const latencies = new Latencies();
    for (const ms of seen.ms) latencies.add(ms);
    const shows = new Map(
      Object.entries(seen.firstOf!).map(([etag, first]) => [
        etag,
        taken(decoded(Buffer.from(first.wire), first.encoding).toString('utf8')) - takenBefore,
      ]),
    );
    const ages = new Latencies();
    let over2s = 0;
    const { at, etag } = seen.answers!;
    for (let i = 0; i < at.length; i++) {
      const k = Math.max(0, shows.get(etag[i])!);
      // held is in acknowledgement order: the (k+1)-th, if it came before this answer, is the oldest it misses
      const age = k < held.length && held[k] < at[i] ? at[i] - held[k] : 0;
      ages.add(age);
      if (age > 2000) over2s++;
    }
    const a1 = latencies.summary();
    return {
      a1: {
        ...a1,
        perSecond: a1.n / seconds,
        non2xx: seen.non2xx,
        errors: seen.errors,
        encodings: seen.encodings,
        viewerLagP99: seen.lagP99,
      },
      originPerSecond: origin / seconds,
      variants: Object.keys(seen.encodings).length,
      age: { ...ages.summary(), over2s, versions: shows.size },
      bookings,
      nginxMs,
    };
  } finally {
    await edge.close();
  }
}
