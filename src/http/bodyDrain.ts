import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** What of a refused body is still read and dropped before the answer goes out (16 times the limit). */
export const DRAIN_BYTES = 16 * 1024 * 1024;
/** How long the rest of a refused body may take to arrive. */
export const DRAIN_MS = 10_000;

/**
 * An answer given before the request's body has arrived whole (413 on Content-Length, 415, a body
 * sent to 404) first reads and drops the rest, up to DRAIN_BYTES and DRAIN_MS. Fastify and Node
 * close the connection after a refused body; closed while the client still sends, the client meets
 * EPIPE or ECONNRESET and never reads the 4xx (issue 52.6). Past either bound the answer goes out
 * anyway, with Connection: close.
 */
export function drainBodyBeforeAnswer(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    // `complete` is Node's "the whole message has arrived"; light-my-request's requests have none
    if (request.raw.complete !== false || request.raw.destroyed) return payload;
    const whole = await drain(request.raw);
    if (!whole) reply.header('connection', 'close');
    return payload;
  });
}

/** Reads `raw` to its end and drops it; false when a bound was met first or the client went away. */
function drain(raw: IncomingMessage): Promise<boolean> {
  return new Promise((resolve) => {
    let read = 0;
    const settle = (whole: boolean) => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('close', onClose);
      raw.off('error', onClose);
      resolve(whole);
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > DRAIN_BYTES) settle(false);
    };
    const onEnd = () => settle(true);
    const onClose = () => settle(raw.complete);
    const timer = setTimeout(() => settle(false), DRAIN_MS);
    raw.on('data', onData);
    raw.once('end', onEnd);
    raw.once('close', onClose);
    raw.once('error', onClose);
    raw.resume();
  });
}
