/** W1: A1 on one busy resource, cached and uncached, against its ceiling (bare Fastify, same bytes). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { W1Data } from './seed.js';
import { cpuMeter } from './cpu.js';
import { startChild, stop } from './service.js';

export const W1_SECONDS = 10;
export const W1_CONNECTIONS = 10;

/** The bookables of an A1 answer (every group of it). */
export function bookablesOf(json: string): { kind: string }[] {
  const body = JSON.parse(json) as Record<string, unknown>;
  return Object.entries(body)
    .filter(([k]) => k !== 'public_visible')
    .flatMap(([, v]) => v as { kind: string }[]);
}

/** Latency and rate of GETs of `url`; with `pid`, also that process's CPU time per request (load-independent). */
async function measureGet(url: string, pid?: number) {
  await autocannon({ url, connections: W1_CONNECTIONS, duration: 3 }); // warm-up
  const spent = pid === undefined ? undefined : cpuMeter(pid);
  const r = await autocannon({ url, connections: W1_CONNECTIONS, duration: W1_SECONDS });
  const cpuMsPerRequest = spent ? spent().serviceMs / r.requests.total : NaN;
  return {
    p50: r.latency.p50,
    p99: r.latency.p99,
    rps: r.requests.average,
    non2xx: r.non2xx,
    errors: r.errors,
    cpuMsPerRequest,
  };
}

export async function w1(serverUrl: string, servicePid: number, data: W1Data) {
  const path = `/resources/${data.resourceUuid}/upcoming_bookables?prdRef=${data.productUuid}`;
  const sample = await fetch(`${serverUrl}${path}`);
  const bytes = Buffer.from(await sample.arrayBuffer());
  const items = bookablesOf(bytes.toString('utf8'));
  const service = await measureGet(`${serverUrl}${path}`, servicePid);
  // every request another timeFormat: a cache miss each time, so the whole listing is computed
  let n = 0;
  const computedCpu = cpuMeter(servicePid);
  const computed = await autocannon({
    url: serverUrl,
    connections: W1_CONNECTIONS,
    duration: W1_SECONDS,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => ({
          ...req,
          path: `${path}&timeFormat=${encodeURIComponent(`yyyy-MM-dd HH:mm '${n++}'`)}`,
        }),
      },
    ],
  });
  const computedCpuMs = computedCpu().serviceMs / computed.requests.total;
  const file = join(mkdtempSync(join(tmpdir(), 'bench-')), 'w1.json');
  writeFileSync(file, bytes);
  const ceilingServer = await startChild(['--import', 'tsx', 'bench/ceiling.ts', file], {});
  const ceiling = await measureGet(`${ceilingServer.url}${path}`, ceilingServer.child.pid!);
  await stop(ceilingServer.child);
  return {
    status: sample.status,
    bytes: bytes.length,
    items: items.length,
    lots: items.filter((i) => i.kind === 'models.LotAppointment').length,
    service,
    ceiling,
    computed: {
      p50: computed.latency.p50,
      p99: computed.latency.p99,
      rps: computed.requests.average,
      cpuMsPerRequest: computedCpuMs,
    },
  };
}
