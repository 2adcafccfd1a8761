/** A closed-loop HTTP client for mixed workloads: each request timed on its own, per operation. */
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

export interface Timed {
  status: number;
  ms: number;
  headers: IncomingHttpHeaders;
  /** the body as it came over the wire: still compressed when the answer has a Content-Encoding */
  wire: Buffer;
  /** the body as text, its Content-Encoding undone (decoded when first read) */
  readonly body: string;
}

export type Send = ReturnType<typeof client>;

const DECODERS: Record<string, (wire: Buffer) => Buffer> = {
  br: brotliDecompressSync,
  gzip: gunzipSync,
  deflate: inflateSync,
};

/** A body as sent, its Content-Encoding undone. */
export function decoded(wire: Buffer, encoding: string | undefined): Buffer {
  if (!encoding || encoding === 'identity') return wire;
  const decode = DECODERS[encoding];
  if (!decode) throw new Error(`unknown Content-Encoding ${encoding}`);
  return decode(wire);
}

export function client(baseUrl: string, connections: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const base = new URL(baseUrl);
  return (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Timed> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const started = performance.now();
      const req = request(
        {
          agent,
          host: base.hostname,
          port: base.port,
          method,
          path,
          headers: payload
            ? { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
            : headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const ms = performance.now() - started;
            const wire = Buffer.concat(chunks);
            let text: string | undefined;
            resolve({
              status: res.statusCode ?? 0,
              ms,
              headers: res.headers,
              wire,
              get body() {
                text ??= decoded(wire, res.headers['content-encoding']).toString('utf8');
                return text;
              },
            });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
}

/** The Content-Encoding of an answer, `identity` when it has none. */
export const encodingOf = (r: Timed) => r.headers['content-encoding'] ?? 'identity';

/** Latencies of one operation. */
export class Latencies {
  private readonly values: number[] = [];
  failed = 0;
  add(ms: number): void {
    this.values.push(ms);
  }
  summary() {
    const v = [...this.values].sort((a, b) => a - b);
    const at = (q: number) => (v.length ? v[Math.min(v.length - 1, Math.floor(q * v.length))] : NaN);
    return { n: v.length, p50: at(0.5), p99: at(0.99), max: v.length ? v[v.length - 1] : NaN, failed: this.failed };
  }
}
