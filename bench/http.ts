/** A closed-loop HTTP client for mixed workloads: each request timed on its own, per operation. */
import { Agent, request } from 'node:http';

export interface Timed {
  status: number;
  body: string;
  ms: number;
}

export function client(baseUrl: string, connections: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const base = new URL(baseUrl);
  return (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Timed> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const started = performance.now();
      const req = request(
        { agent, host: base.hostname, port: base.port, method, path, headers: payload ? { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : headers },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, ms: performance.now() - started }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
}

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
