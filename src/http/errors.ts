import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type ErrorCode } from '../errors.js';
import { sqlState } from '../storage/db.js';
import { CommitUnknownError, DatabaseUnavailableError } from '../storage/hosts.js';
import { describeValidation, validationContext, type AjvIssue } from './validationMessage.js';

/** The one table from domain codes to HTTP: status and the errorCode on the wire. */
const ERROR_TABLE: Record<ErrorCode, { status: number; wire?: string }> = {
  VALIDATION: { status: 400 },
  NOT_FOUND: { status: 404 },
  UNAUTHORIZED: { status: 401 },
  FORBIDDEN: { status: 403 },
  CONFLICT: { status: 409 },
  DUPLICATE: { status: 409 },
  CAPACITY_EXHAUSTED: { status: 409 },
  INVALID_TRANSITION: { status: 409 },
  AppointmentAlreadyBookedException: { status: 409 },
  SLOT_TAKEN: { status: 412, wire: '201' },
  HOLD_LIMIT: { status: 429 },
  TOO_LATE: { status: 409 },
  PAYLOAD_TOO_LARGE: { status: 413 },
  RATE_LIMITED: { status: 429 },
  BOOKING_WINDOW: { status: 412 },
  BOOKING_LIMIT: { status: 412 },
  CONSUMER_LIMIT: { status: 409 },
  CANCEL_NOTICE: { status: 409 },
  IDEMPOTENCY_KEY_REUSED: { status: 422 },
  IDEMPOTENCY_KEY_IN_USE: { status: 409 },
  CALENDAR_UNREADABLE: { status: 422 },
  CALENDAR_URL_NOT_ALLOWED: { status: 400 },
};

export function errorBody(errorCode: string, message: string) {
  return { 'api-info': { version: '1' }, errors: [{ errorCode, message }] };
}

export function statusOf(code: ErrorCode): number {
  return ERROR_TABLE[code].status;
}

function fromFastifyError(err: FastifyError): { status: number; code: string; message: string } {
  if (err.validation) {
    const message = describeValidation(err.validation as AjvIssue[], validationContext(err.validationContext));
    return { status: 400, code: 'VALIDATION', message };
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'body is larger than 1 MiB' };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, code: 'VALIDATION', message: 'body is not valid JSON' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'VALIDATION', message: 'body must be application/json' };
  }
  if (err.statusCode === 429) return { status: 429, code: 'RATE_LIMITED', message: err.message };
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return { status: err.statusCode, code: 'VALIDATION', message: err.message };
  }
  return { status: 500, code: 'INTERNAL', message: 'internal error' };
}

/** Path segments may be this long (references are up to 255 characters, percent-encoded up to 9 each). */
export const MAX_PARAM_LENGTH = 4096;

const FRAMEWORK_MESSAGES: Record<string, string> = {
  FST_ERR_BAD_URL: 'the URL is not validly percent-encoded',
  FST_ERR_MAX_PARAM_LENGTH: `a path segment is longer than ${MAX_PARAM_LENGTH} characters`,
};

/** Fastify's own request errors before routing (a broken or oversized URL): 400 in the error body too. */
export function frameworkErrors(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  reply.status(400).send(errorBody('VALIDATION', FRAMEWORK_MESSAGES[err.code] ?? 'the request is not valid'));
}

/** A registered route's path as a pattern of concrete paths (":name" one segment, "*" the rest). */
function pathPattern(url: string): RegExp {
  const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const segment = (part: string) =>
    part === '*'
      ? '.*'
      : part
          .split(/(:[A-Za-z0-9_]+)/)
          .map((piece) => (piece.startsWith(':') ? '[^/]+' : escapeRegExp(piece)))
          .join('');
  return new RegExp(`^${url.split('/').map(segment).join('/')}$`);
}

/**
 * The methods each registered path answers, for 405: a known path with another method is
 * "405 Method Not Allowed" with `Allow` (RFC 9110 15.5.6), not 404.
 */
export class RouteMethods {
  private readonly routes: { url: string; pattern: RegExp; methods: Set<string> }[] = [];

  add(url: string, method: string | string[]): void {
    let route = this.routes.find((r) => r.url === url);
    if (!route) {
      route = { url, pattern: pathPattern(url), methods: new Set() };
      this.routes.push(route);
    }
    for (const m of [method].flat()) route.methods.add(m.toUpperCase());
  }

  /** Every method some route answers at this concrete path (empty: no route has the path). */
  allowed(path: string): string[] {
    const methods = new Set<string>();
    for (const r of this.routes) if (r.pattern.test(path)) for (const m of r.methods) methods.add(m);
    return [...methods].sort();
  }
}

/** 405 with Allow on a known path, else 404: the answer to a request no route takes. */
function noRoute(routes: RouteMethods | undefined, request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.split('?')[0];
  let decoded = path;
  try {
    decoded = decodeURI(path);
  } catch {
    // a broken escape never matched a route anyway
  }
  const allowed = routes?.allowed(decoded) ?? [];
  if (allowed.length > 0) {
    const allow = allowed.join(', ');
    const message = `${request.method} is not allowed on ${path}; allowed: ${allow}`;
    return reply.status(405).header('allow', allow).send(errorBody('METHOD_NOT_ALLOWED', message));
  }
  return reply.status(404).send(errorBody('NOT_FOUND', `no route ${request.method} ${path}`));
}

/**
 * A request no route takes is answered before its body is read: whatever it carries (a QUERY
 * without Content-Type, a body of any type) it is 405 on a known path and 404 on an unknown one.
 * Registered after the hooks that apply to every path (canonical host, rate limits).
 */
export function answerUnroutedFirst(app: FastifyInstance, routes: RouteMethods): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) return noRoute(routes, request, reply);
  });
}

/** Seconds a client should wait after a 503 for a database that is away (a failover takes a few). */
export const UNAVAILABLE_RETRY_AFTER_S = 2;

/**
 * 503 with Retry-After for a database that is away (a restart, a failover in progress): never a 500.
 * A commit whose outcome is not known says so: the change may or may not be there, and a retry with
 * the same Idempotency-Key finds out.
 */
export function unavailableAnswer(err: DatabaseUnavailableError) {
  const message =
    err instanceof CommitUnknownError
      ? 'the database was lost while saving: the change may or may not have been saved; ' +
        'retry with the same Idempotency-Key to find out'
      : 'the database is unavailable (a restart or failover); retry shortly';
  return errorBody('DATABASE_UNAVAILABLE', message);
}

export function registerErrorHandling(app: FastifyInstance, routes?: RouteMethods): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof DatabaseUnavailableError) {
      request.log.warn(
        { reason: err.message, commitUnknown: err instanceof CommitUnknownError },
        'database unavailable',
      );
      return reply.status(503).header('retry-after', UNAVAILABLE_RETRY_AFTER_S).send(unavailableAnswer(err));
    }
    if (err instanceof DomainError) {
      const { status, wire } = ERROR_TABLE[err.code];
      return reply.status(status).send(errorBody(wire ?? err.code, err.message));
    }
    // a pool's reference and a resource's never clash (pools/pool_reference_guard.sql)
    if (sqlState(err) === 'BKREF') return reply.status(409).send(errorBody('CONFLICT', err.message));
    const mapped = fromFastifyError(err);
    if (mapped.status >= 500) request.log.error({ err }, 'unhandled error');
    if (err.statusCode === 429 && reply.getHeader('retry-after') === undefined) reply.header('retry-after', 60);
    return reply.status(mapped.status).send(errorBody(mapped.code, mapped.message));
  });
  app.setNotFoundHandler((request, reply) => noRoute(routes, request, reply));
}
