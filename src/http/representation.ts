/**
 * Sending a JSON body that is cached as bytes (A1's listing): an ETag from its content, 304 for a
 * client that already has it, and br or gzip as the client accepts, compressed once per body and
 * kept alongside it, so answering from the cache costs no compression.
 *
 * Compression is synchronous, by the first answer that needs it: its cost is in proportion to the
 * computation that made the body (synchronous too), and less than a trip through the thread pool
 * and back when the event loop is busy, as it is in a rush. Every request sharing that body,
 * resumed right after, finds the bytes ready (docs/decisions.md, "Compression and ETag for A1").
 */
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import negotiate from '@fastify/accept-negotiator';
import type { FastifyReply, FastifyRequest } from 'fastify';

export type Encoding = 'br' | 'gzip';
const ENCODINGS: Encoding[] = ['br', 'gzip'];
/** Below this size compressing saves less than it costs (the threshold @fastify/compress uses too). */
export const COMPRESS_THRESHOLD_BYTES = 1024;

const compressors: Record<Encoding, (body: Buffer) => Buffer> = {
  // quality 3: as small as quality 4 (@fastify/compress's) for a listing, for less CPU; the higher
  // qualities save little more at many times the cost (docs/performance.md)
  br: (body) =>
    brotliCompressSync(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 3, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
  gzip: (body) => gzipSync(body, { level: 6 }),
};

interface Variants {
  etag: string;
  encoded: Partial<Record<Encoding, Buffer>>;
}

// keyed by the body itself: the variants live exactly as long as the cached body does
const variantsOf = new WeakMap<Buffer, Variants>();

function variants(body: Buffer): Variants {
  let v = variantsOf.get(body);
  if (!v) {
    v = { etag: `W/"${createHash('sha1').update(body).digest('base64url').slice(0, 27)}"`, encoded: {} };
    variantsOf.set(body, v);
  }
  return v;
}

/** Clients send few distinct Accept-Encoding values: each is negotiated once (bounded, cleared when full). */
const negotiated = new Map<string, Encoding | null>();
const MAX_NEGOTIATED = 256;

/** The encoding to answer with: the client's preferred one among br and gzip, else null (identity). */
export function acceptedEncoding(header: string | undefined): Encoding | null {
  if (!header) return null;
  let encoding = negotiated.get(header);
  if (encoding === undefined) {
    encoding = negotiate(header.toLowerCase(), ENCODINGS) as Encoding | null;
    if (negotiated.size >= MAX_NEGOTIATED) negotiated.clear();
    negotiated.set(header, encoding);
  }
  return encoding;
}

/** If-None-Match (RFC 9110 13.1.2, weak comparison): `*` or any listed tag, weak or strong, equal to ours. */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const ours = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === ours;
  });
}

/**
 * Caching headers of the public GETs a shared cache may serve to many (A1's listing, the calendar
 * feeds), the one home of their lifetime. Shared caches (nginx, a CDN: deploy/nginx.conf) keep an
 * answer 1 s (s-maxage), so a rush of viewers reaches the service about once a second per listing;
 * a CDN that reads CDN-Cache-Control (RFC 9213) may also serve it 1 s more while it fetches the
 * next (nginx does so by its configuration). Browsers revalidate every use (max-age=0, with the
 * ETag: 304) and never serve a stale copy: `stale-while-revalidate` in Cache-Control would let a
 * browser show the list it had once more, right after a 412 asked for a fresh one. A listing a
 * shared cache kept costs a consumer at most a 412 and a fresh list: the hold and the booking
 * decide (docs/decisions.md, "The listing at the edge").
 */
export const SHARED_CACHE_HEADERS = {
  'cache-control': 'public, max-age=0, s-maxage=1',
  'cdn-cache-control': 'public, max-age=1, stale-while-revalidate=1',
} as const;

/** Adds a request header the answer varies with to Vary, keeping those named already (CORS adds Origin). */
export function addVary(reply: FastifyReply, field: string): void {
  const current = String(reply.getHeader('vary') ?? '');
  const named = current.split(',').map((f) => f.trim().toLowerCase());
  if (!named.includes(field.toLowerCase()) && !named.includes('*'))
    reply.header('vary', current ? `${current}, ${field}` : field);
}

/**
 * Answers with `body` (JSON bytes that are not changed afterwards) as a representation shared caches
 * may keep for a second and browsers revalidate on every use (SHARED_CACHE_HEADERS), with If-None-Match.
 */
export function sendCachedJson(request: FastifyRequest, reply: FastifyReply, body: Buffer): FastifyReply {
  const v = variants(body);
  reply.header('etag', v.etag).headers(SHARED_CACHE_HEADERS);
  addVary(reply, 'Accept-Encoding');
  if (notModified(request.headers['if-none-match'], v.etag)) return reply.code(304).send();
  reply.type('application/json; charset=utf-8');
  const encoding =
    body.length >= COMPRESS_THRESHOLD_BYTES ? acceptedEncoding(request.headers['accept-encoding']) : null;
  if (!encoding) return reply.send(body);
  v.encoded[encoding] ??= compressors[encoding](body);
  return reply.header('content-encoding', encoding).send(v.encoded[encoding]);
}
