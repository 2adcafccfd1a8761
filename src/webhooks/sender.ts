/**
 * One delivery attempt: POST the body to the URL and wait at most `timeoutMs` for the whole
 * answer. Only a 2xx succeeds; a redirect is not followed (it fails like any other status).
 */
import http from 'node:http';
import https from 'node:https';
import { assertDeliverable, guardedLookup } from '../net/destination.js';

export interface AttemptResult {
  ok: boolean;
  /** the receiver's status, null when none came */
  status: number | null;
  error: string | null;
  /** stopped by the signal: not an attempt the receiver is to blame for */
  aborted?: boolean;
}

export interface AttemptOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** aborts the attempt (the worker is stopping) */
  signal?: AbortSignal;
}

export function postWebhook(
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  options: AttemptOptions,
): Promise<AttemptResult> {
  return new Promise((resolve) => {
    const done = (r: AttemptResult) => {
      clearTimeout(timer);
      resolve(r);
    };
    let url: URL;
    try {
      url = new URL(rawUrl);
      assertDeliverable(url, options.allowPrivate);
    } catch (err) {
      return resolve({ ok: false, status: null, error: (err as Error).message });
    }
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      headers: {
        ...headers,
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'booking-service-webhooks/1',
      },
      lookup: guardedLookup(options.allowPrivate),
      signal: options.signal,
    });
    const timer = setTimeout(
      () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      response.resume(); // the answer's body is not needed, only its end
      response.on('end', () => {
        if (status >= 200 && status < 300) return done({ ok: true, status, error: null });
        const what =
          status >= 300 && status < 400 ? `redirect (${status}) not followed` : `the receiver answered ${status}`;
        done({ ok: false, status, error: what });
      });
      response.on('error', (err) => done({ ok: false, status, error: err.message }));
    });
    request.on('error', (err) => {
      if (options.signal?.aborted)
        return done({ ok: false, status: null, error: 'aborted: the worker is stopping', aborted: true });
      done({
        ok: false,
        status: null,
        error: [(err as NodeJS.ErrnoException).code, err.message].filter(Boolean).join(' '),
      });
    });
    request.end(body);
  });
}
