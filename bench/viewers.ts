/**
 * RUSH's viewers: closed loops polling one A1 path, in a worker thread of their own. The bookers'
 * load generator (autocannon) runs on the main thread; sharing its event loop, a viewer's answer
 * waited for the bookers' request building and parsing before its clock stopped (that loop lagged
 * 13-16 ms at p99), which no browser shares. The worker still shares the machine's cores.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { client, encodingOf, type Timed } from './http.js';

export interface ViewRun {
  /** every answer's time, ms */
  ms: number[];
  non2xx: number;
  errors: number;
  /** body bytes of the 2xx answers as received, in all and the largest */
  wireTotal: number;
  wireMax: number;
  /** 2xx answers per Content-Encoding */
  encodings: Record<string, number>;
  /** the last 2xx answer as received */
  last: { wire: Uint8Array; encoding: string | undefined } | null;
  /** the viewers' own event loop lag at p99, ms */
  lagP99: number;
  /**
   * with `versions`: each 2xx answer's arrival (ms since the epoch) and ETag, and each ETag's first answer as received
   */
  answers?: { at: number[]; etag: string[] };
  firstOf?: Record<string, { wire: Uint8Array; encoding: string | undefined }>;
}

interface Job {
  serverUrl: string;
  path: string;
  headers: Record<string, string>;
  viewers: number;
  /** each viewer's pause between an answer and its next request, ms (none: a closed loop) */
  pauseMs?: number;
  /** record which listing each answer was (ViewRun's answers and firstOf) */
  versions?: boolean;
}

/** Opens the viewers' connections (as browsers showing the page have), then polls from `go` until its deadline. */
async function view(job: Job, go: () => Promise<number>): Promise<ViewRun> {
  const send = client(job.serverUrl, job.viewers);
  await Promise.all(Array.from({ length: job.viewers }, () => send('GET', job.path, job.headers)));
  const run: ViewRun = {
    ms: [],
    non2xx: 0,
    errors: 0,
    wireTotal: 0,
    wireMax: 0,
    encodings: {},
    last: null,
    lagP99: NaN,
  };
  let last: Timed | undefined;
  const answers = { at: [] as number[], etag: [] as string[] };
  const firstOf: NonNullable<ViewRun['firstOf']> = {};
  const record = (r: Timed) => {
    const etag = String(r.headers.etag);
    answers.at.push(performance.timeOrigin + performance.now());
    answers.etag.push(etag);
    firstOf[etag] ??= { wire: r.wire, encoding: r.headers['content-encoding'] };
  };
  const deadline = await go();
  const lag = monitorEventLoopDelay({ resolution: 1 });
  lag.enable();
  const loop = async () => {
    while (Date.now() < deadline) {
      let r: Timed;
      try {
        r = await send('GET', job.path, job.headers);
      } catch {
        run.errors++;
        continue;
      }
      run.ms.push(r.ms);
      if (r.status < 200 || r.status >= 300) {
        run.non2xx++;
        continue;
      }
      run.wireTotal += r.wire.length;
      run.wireMax = Math.max(run.wireMax, r.wire.length);
      run.encodings[encodingOf(r)] = (run.encodings[encodingOf(r)] ?? 0) + 1;
      last = r;
      if (job.versions) record(r);
      if (job.pauseMs) await new Promise((resolve) => setTimeout(resolve, job.pauseMs));
    }
  };
  await Promise.all(Array.from({ length: job.viewers }, loop));
  lag.disable();
  run.lagP99 = lag.percentile(99) / 1e6;
  run.last = last ? { wire: last.wire, encoding: last.headers['content-encoding'] } : null;
  return job.versions ? { ...run, answers, firstOf } : run;
}

/**
 * Starts the viewers in a worker; `start(seconds)` lets them poll for that long once their
 * connections are open and resolves with what they saw.
 */
export async function viewersInWorker(job: Job): Promise<{ start: (seconds: number) => Promise<ViewRun> }> {
  const worker = new Worker(new URL('./viewersWorker.mjs', import.meta.url), { workerData: job });
  const message = <T>() =>
    new Promise<T>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  await message<'ready'>();
  return {
    start: async (seconds) => {
      const done = message<ViewRun>();
      worker.postMessage(Date.now() + seconds * 1000);
      const run = await done;
      await worker.terminate();
      return run;
    },
  };
}

/** The worker's side (bench/viewersWorker.mjs): ready once connected, polls from the deadline it is sent. */
export async function runViewerThread(): Promise<void> {
  if (isMainThread || !parentPort) throw new Error('runViewerThread runs in a worker');
  const port = parentPort;
  const go = () =>
    new Promise<number>((resolve) => {
      port.once('message', resolve);
      port.postMessage('ready');
    });
  port.postMessage(await view(workerData as Job, go));
}
