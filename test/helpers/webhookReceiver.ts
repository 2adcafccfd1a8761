/**
 * A real HTTP receiver for webhook tests: records every request (headers and raw body) and
 * answers as the test says (a status, or no answer at all to provoke the sender's time limit).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** for a request left unanswered ('hang'): when the sender closed the connection (gave up) */
  closedAt?: number;
}

/** What the receiver does with a request: answer this status, or 'hang' (never answer). */
export type Behaviour = number | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  /** decides the answer per request; default 200 */
  respond: (r: Received, index: number) => Behaviour;
  /** requests to `path` as parsed bodies */
  // biome-ignore lint/suspicious/noExplicitAny: an event's data as parsed JSON, read field by field
  events(path?: string): { id: string; body: { type: string; timestamp: string; data: Record<string, any> } }[];
  /** waits until `predicate` holds for the received requests (polls; fails after timeoutMs) */
  waitFor(predicate: (received: Received[]) => boolean, timeoutMs?: number): Promise<void>;
  /** the number of requests answered while another one to the same receiver was still open, at most */
  maxConcurrent(): number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<() => void>();
  let open = 0;
  let maxOpen = 0;
  const receiver: Receiver = {
    url: '',
    received,
    respond: () => 200,
    events: (path) =>
      received
        .filter((r) => path === undefined || r.path === path)
        .map((r) => ({ id: String(r.headers['webhook-id']), body: JSON.parse(r.body) })),
    async waitFor(predicate, timeoutMs = 25_000) {
      const until = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > until)
          throw new Error(`receiver: condition not met within ${timeoutMs} ms (${received.length} requests received)`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    maxConcurrent: () => maxOpen,
    close: () =>
      new Promise((resolve) => {
        for (const release of hanging) release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(r);
      const behaviour = receiver.respond(r, received.length - 1);
      open++;
      maxOpen = Math.max(maxOpen, open);
      const finish = () => {
        open--;
      };
      if (behaviour === 'hang') {
        const release = () => {
          if (hanging.has(release)) r.closedAt ??= Date.now();
          hanging.delete(release);
          finish();
          res.destroy();
        };
        hanging.add(release);
        res.on('close', () => hanging.has(release) && release());
        return;
      }
      setTimeout(() => {
        finish();
        res
          .writeHead(behaviour, behaviour >= 300 && behaviour < 400 ? { location: `${receiver.url}/elsewhere` } : {})
          .end('ok');
      }, 5);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/**
 * Verifies a received request with the Standard Webhooks reference
 * implementation; throws when the signature does not match.
 */
export function verify(secret: string, r: Received): unknown {
  return new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  });
}
